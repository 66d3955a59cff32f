import type { EventInput } from '../../src/task/contracts/events.ts';

/** A typical journaled event: a tool call of an act step, about 250 bytes as a frame. */
export const SAMPLE_EVENT: EventInput = {
  type: 'tool.call',
  step: 'step_01JD3Z8W2X4N6Q8R0T2V4X6Z8C',
  step_kind: 'act',
  data: { tool: 'read_file', call_id: 'call_01JD3Z8W2X4N6Q8R0T2V4X6Z8D', input: { path: 'src/index.ts' } },
};

/**
 * What a no-op governed step journals: the step opens, its zero-latency model call reports usage and the budgets
 * left, and the step closes (the shapes of a model-only phase in the demo's journal).
 */
export const NOOP_STEP_EVENTS: readonly EventInput[] = [
  {
    type: 'phase.start',
    step: '0007-verify',
    step_kind: 'agent',
    message: 'verify started',
    data: { phase: 'verify', elapsed_ms: 412 },
  },
  {
    type: 'usage.delta',
    step: '0007-verify',
    step_kind: 'verify',
    message: 'model call: 1441 tokens, $0.005055',
    usage_delta: {
      input_tokens: 1380,
      output_tokens: 61,
      total_tokens: 1441,
      reasoning_tokens: 0,
      cached_input_tokens: 0,
      cost_usd: 0.005055,
    },
    budgets_remaining: { wall_clock_ms: 1_799_588, iterations: 42, tokens: 180_000, cost_usd: 4.91 },
    data: { tool_calls: 0, finish_reason: 'stop', elapsed_ms: 1 },
  },
  {
    type: 'phase.finish',
    step: '0007-verify',
    step_kind: 'agent',
    message: 'verify finished',
    data: { phase: 'verify', elapsed_ms: 413 },
  },
];

/** A typical `progress/state.json`, about 1 KB. */
export { sampleState } from '../../test/support/sample-state.ts';
