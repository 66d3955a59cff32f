import { describe, expect, it } from 'vitest';
import type { EventFrame } from '../../../task/contracts/events.ts';
import type { ExecutorEvent } from '../executor.ts';
import { createJournalMapper } from './builtin-events.ts';

let seq = 0;
const frame = (type: EventFrame['type'], fields: Partial<EventFrame> = {}): EventFrame => ({
  version: 'agent.events.v1',
  id: `evt_${String(++seq).padStart(26, '0')}`,
  seq,
  ts: '2026-11-25T00:00:00.000Z',
  type,
  ...fields,
});
const usage = (input: number, output: number, cost: number | null) => ({
  input_tokens: input,
  output_tokens: output,
  total_tokens: input + output,
  reasoning_tokens: 0,
  cached_input_tokens: 0,
  cost_usd: cost,
});

function map(frames: EventFrame[]) {
  const events: ExecutorEvent[] = [];
  const mapper = createJournalMapper((event) => events.push(event), '/s/turn-1');
  for (const f of frames) mapper.handle(f);
  return { events, run: mapper.finish() };
}

describe('the governed run journal, as executor events', () => {
  it('maps tool calls, approvals, running usage totals and the answer, each frame once', () => {
    const call = frame('tool.call', { data: { tool_call_id: 'c1', tool: 'fs_write', args: { path: 'a' } } });
    const { events, run } = map([
      call,
      call, // a frame read twice (followed, then read to the end) counts once
      frame('tool.result', { data: { tool_call_id: 'c1', tool: 'fs_write', ok: true } }),
      frame('approval.requested', { data: { id: 'req_1', type: 'plan' } }),
      frame('usage.delta', { usage_delta: usage(100, 10, 0.5) }),
      frame('usage.delta', { usage_delta: usage(50, 5, null) }),
      frame('finish', { data: { reason: 'completed', output: 'All done.' } }),
    ]);
    expect(events).toEqual([
      { type: 'tool.call', tool: 'fs_write', input: { path: 'a' }, id: 'c1' },
      { type: 'tool.result', tool: 'fs_write', ok: true, id: 'c1' },
      { type: 'warning', message: 'Approval needed for the plan: agency approve /s/turn-1 req_1' },
      { type: 'usage', input: 100, output: 10, costUsd: 0.5 },
      { type: 'usage', input: 150, output: 15, costUsd: 0.5 },
      { type: 'text', text: 'All done.' },
    ]);
    expect(run).toEqual({
      output: 'All done.',
      usage: { input: 150, output: 15 },
      costUsd: 0.5,
      finishReason: 'completed',
    });
  });

  it.each([
    ['model_rate_limit', 'Rate limited', 'rate_limit'],
    ['sandbox_unavailable', 'bwrap is missing', 'sandbox_error'],
    ['model_fatal', 'prompt is too long', 'context_window'],
    ['tool_failed', 'boom', 'executor_error'],
  ] as const)('reports a run that failed with %s as %s', (code, message, type) => {
    const { run } = map([
      frame('error', { error: { code, message } }),
      frame('finish', { data: { reason: 'error', output: '' } }),
    ]);
    expect(run.error).toEqual({ type, message: `${code}: ${message}` });
  });

  it('reports a run that stopped for another reason (a denial, a budget) as executor_error', () => {
    const { run } = map([frame('finish', { data: { reason: 'approval.denied', output: '' } })]);
    expect(run.error).toEqual({ type: 'executor_error', message: 'The governed run finished with approval.denied.' });
  });
});
