// POST /task under a few thousand random and mutated bodies: every answer is a JSON error naming a field (or a task
// created), none crashes the worker, and none pollutes a prototype.
import { describe, expect, it } from 'vitest';
import { workerKit } from '../../../test/support/worker-kit.ts';

// A small deterministic generator (mulberry32): the same bodies on every run, and a failing one can be replayed.
function random(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

const KEYS = [
  'prompt',
  'model',
  'timeout_seconds',
  'session_id',
  'project',
  'env',
  'name',
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'hasOwnProperty',
  '',
  'PROMPT',
  'prompt\u0000',
  'credentials',
];

function value(next: () => number, depth: number): unknown {
  const pick = Math.floor(next() * 12);
  if (depth > 3) return 'x';
  switch (pick) {
    case 0:
      return null;
    case 1:
      return next() < 0.5;
    case 2:
      return Math.floor(next() * 1e6) - 5e5;
    case 3:
      return next() * 1e300;
    case 4:
      return '';
    case 5:
      return 'fix the bug'.repeat(Math.floor(next() * 5));
    case 6:
      return '\u0000\uFFFF\uD800 ünïcödé 🚀';
    case 7:
      return [value(next, depth + 1), value(next, depth + 1)];
    case 8:
      return '0b6f3a52-3c55-4b8e-9a8e-5c4f6c1d2e3f';
    default:
      return object(next, depth + 1);
  }
}

function object(next: () => number, depth: number): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const count = Math.floor(next() * 5);
  for (let i = 0; i < count; i++)
    Object.defineProperty(out, KEYS[Math.floor(next() * KEYS.length)]!, {
      value: value(next, depth),
      enumerable: true,
      configurable: true,
      writable: true,
    });
  return out;
}

// Text-level damage to a valid body: cut, doubled, a byte flipped, a key renamed to a prototype key.
function mutate(text: string, next: () => number): string {
  const at = Math.floor(next() * text.length);
  switch (Math.floor(next() * 6)) {
    case 0:
      return text.slice(0, at);
    case 1:
      return text + text;
    case 2:
      return text.slice(0, at) + String.fromCharCode(Math.floor(next() * 128)) + text.slice(at + 1);
    case 3:
      return text.replace('"prompt"', '"__proto__"');
    case 4:
      return text.replace('"env":{', '"env":{"constructor":{"prototype":{"polluted":"yes"}},');
    default:
      return `[${text}]`;
  }
}

describe('POST /task, fuzzed', () => {
  it('answers every one of 3000 bodies with 201 or a named 4xx, and keeps working', async () => {
    const kit = await workerKit({ bodyBytes: 64 * 1024 });
    const next = random(20261125);
    const valid = JSON.stringify({ prompt: 'fix it', env: { A: 'b' }, project: { name: 'p', prompt: 'q' } });
    const statuses = new Map<number, number>();
    for (let i = 0; i < 3000; i++) {
      const body = i % 3 === 0 ? mutate(valid, next) : JSON.stringify(object(next, 0));
      const response = await kit.request('/task', { body });
      statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
      const answer = (await response.json()) as { error?: string; details?: { field?: unknown; retryable?: unknown } };
      if (response.status === 201) {
        // Frees the worker for the next body.
        (await kit.gate.next()).finish();
        await new Promise((resolve) => setTimeout(resolve, 1));
        while (kit.worker.active()) await new Promise((resolve) => setTimeout(resolve, 1));
        continue;
      }
      expect([400, 409, 413], `body ${i}: ${body.slice(0, 200)}`).toContain(response.status);
      if (response.status === 400) {
        expect(answer.error).toBe('validation_error');
        expect(typeof answer.details?.field).toBe('string');
      }
      expect(typeof answer.details?.retryable).toBe('boolean');
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.prototype).not.toHaveProperty('polluted');
    expect(statuses.get(400)).toBeGreaterThan(2000);
    expect(statuses.get(201)).toBeGreaterThan(0);
    expect((await kit.json('/status')).body).toMatchObject({ state: 'idle' });
    expect((await kit.json('/task', { json: { prompt: 'still here' } })).status).toBe(201);
  });
});
