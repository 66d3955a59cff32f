import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ExecutorEvent } from '../executor.ts';
import { createCodexStream } from './codex-stream.ts';

// Recorded from Codex 0.169.0 in agency's sandbox against test/support/scripted-responses-server.ts.
const fixture = (name: string) => readFileSync(join(import.meta.dirname, '__fixtures__', `${name}.jsonl`), 'utf8');

function parse(text: string) {
  const events: ExecutorEvent[] = [];
  const stream = createCodexStream((event) => events.push(event));
  for (const line of text.split('\n')) stream.handle(line);
  return { events, run: stream.finish() };
}

describe('codex exec --json', () => {
  it('maps command executions, the answer and the usage onto events, and keeps the thread id', () => {
    const { events, run } = parse(fixture('tool-use'));
    const shell = (command: string) => ({ command: `/usr/bin/bash -lc '${command}'` });
    expect(events).toEqual([
      { type: 'warning', message: expect.stringMatching(/^Codex: Model metadata for `gpt-5` not found/) as unknown },
      { type: 'tool.call', tool: 'shell', input: shell('printf hello > notes.txt && cat notes.txt'), id: 'item_1' },
      { type: 'tool.result', tool: 'shell', ok: true, id: 'item_1' },
      { type: 'tool.call', tool: 'shell', input: shell('cat /etc/shadow'), id: 'item_2' },
      { type: 'tool.result', tool: 'shell', ok: false, id: 'item_2' },
      { type: 'text', text: 'Wrote notes.txt.' },
      { type: 'usage', input: 29866, output: 144 },
    ]);
    expect(run).toEqual({
      output: 'Wrote notes.txt.',
      threadId: '01a2138e-81ad-7133-a977-c7bd5a8a14bb',
      usage: { input: 29866, output: 144 },
    });
  });

  it('continues the same thread when resumed', () => {
    expect(parse(fixture('resumed')).run.threadId).toBe('01a2138e-81ad-7133-a977-c7bd5a8a14bb');
  });

  it.each([
    ['rate-limit', 'rate_limit', 'exceeded retry limit, last status: 429 Too Many Requests'],
    ['invalid-api-key', 'invalid_api_key', expect.stringMatching(/^unexpected status 401 Unauthorized/) as unknown],
    [
      'context-window',
      'context_window',
      expect.stringMatching(/ran out of room in the model's context window/) as unknown,
    ],
  ])('classifies a failed turn of %s as %s', (name, type, message) => {
    const { run, events } = parse(fixture(name));
    expect(run.error).toEqual({ type, message });
    expect(events.at(-1)).toMatchObject({ type: 'warning' });
  });

  it('reports file changes, which arrive completed, as a call and its result', () => {
    const line = {
      type: 'item.completed',
      item: { id: 'item_4', type: 'file_change', changes: [{ path: 'a.txt', kind: 'add' }], status: 'completed' },
    };
    expect(parse(JSON.stringify(line)).events).toEqual([
      { type: 'tool.call', tool: 'apply_patch', input: { changes: [{ path: 'a.txt', kind: 'add' }] }, id: 'item_4' },
      { type: 'tool.result', tool: 'apply_patch', ok: true, id: 'item_4' },
    ]);
  });
});
