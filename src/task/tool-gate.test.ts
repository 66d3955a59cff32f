import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createRedactor } from '../core/redact.ts';
import { defineTool } from '../tools/define-tool.ts';
import { createToolRegistry } from '../tools/tool-registry.ts';
import { createMemoryJournal } from './journal/memory-journal.ts';
import type { Session } from './session.ts';
import { createToolGate, type StepGate } from './tool-gate.ts';

const SECRET = 'cred-canary-7f3a9c2e5b1d8046';

function windows(text: string, size = 10): string[] {
  return Array.from({ length: text.length - size + 1 }, (_, start) => text.slice(start, start + size));
}

// The parts of a session the journaling processor touches, with the runner's redaction on journal and session.
function journaledSession() {
  const redactor = createRedactor({ extraSecrets: [SECRET] });
  const journal = createMemoryJournal({ redact: (frame) => redactor.redact(frame) });
  const session = {
    spec: { approvals: { require_tools: [] } },
    fold: { toolCalls: new Map() },
    journal,
    emit: (event: Parameters<Session['emit']>[0]) => journal.append(event),
    redact: <T>(value: T): T => redactor.redact(value),
  } as unknown as Session;
  return { session, journal };
}

describe('createToolGate: the tool.call frame', () => {
  const tool = defineTool({
    name: 'fetch_page',
    description: 'Fetches a page',
    input: z.object({ url: z.string() }),
    effects: 'read',
    execute: async () => 'ok',
  });
  const gate: StepGate = { step: 'act-1', phase: 'act', allow: () => true, planSig: null };

  // Each position puts the 28-character secret across the 119-character cut, with 10 to 27 of its characters before
  // it: a cut made before redaction leaves those in the message.
  it.each([92, 100, 105, 109])('message holds no 10 characters of a secret starting at %i', async (at) => {
    const { session, journal } = journaledSession();
    const { journal: processor } = createToolGate(session, createToolRegistry([tool]), () => gate, new Set());
    const input = { url: `https://example.com/${'a'.repeat(at - 28)}${SECRET}&page=2${'b'.repeat(200)}` };
    expect(JSON.stringify(input).indexOf(SECRET)).toBe(at);
    const call = { type: 'tool-call' as const, toolCallId: 'call-1', toolName: tool.name, input };
    await processor.preTool?.({ task: { input: 'x' }, iteration: 0, call });
    const frame = journal.frames.find(({ type }) => type === 'tool.call');
    expect(frame?.message).toMatch(/^fetch_page\(\{"url":"https:\/\/example\.com\/a+/);
    expect(frame?.message?.length).toBeLessThanOrEqual('fetch_page()'.length + 120);
    const written = JSON.stringify(frame);
    for (const piece of windows(SECRET)) expect(written).not.toContain(piece);
  });
});
