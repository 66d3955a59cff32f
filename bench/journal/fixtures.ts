import type { EventInput } from '../../src/task/contracts/events.ts';
import type { StateFile } from '../../src/task/contracts/state.ts';

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
    budgets_remaining: { wall_clock_ms: 1_799_588, steps: 42, tokens: 180_000, cost_usd: 4.91 },
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
export function sampleState(lastSeq = 0): StateFile {
  return {
    version: 'agent.state.v1',
    task_id: 'task_01JD3Z8W2X4N6Q8R0T2V4X6Z8B',
    loop: { name: 'governed', version: '1.0.0' },
    phase: 'act',
    status: 'running',
    plan_sig: 'a'.repeat(64),
    approved_plan_sig: 'a'.repeat(64),
    last_step_id: 'step_01JD3Z8W2X4N6Q8R0T2V4X6Z8C',
    last_seq: lastSeq,
    steps_done: 3,
    verify_attempts: 0,
    budgets: {
      limits: {
        max_wall_clock_ms: 600_000,
        max_steps: 50,
        max_consecutive_tool_steps: 10,
        step_tool_timeout_ms: 60_000,
        max_tokens: 500_000,
        max_cost_usd: 5,
        verify_reserve: 0.1,
      },
      remaining: { wall_clock_ms: 540_000, steps: 47, tokens: 480_000, cost_usd: 4.8 },
    },
    usage: {
      input_tokens: 18_000,
      output_tokens: 2_000,
      total_tokens: 20_000,
      reasoning_tokens: 0,
      cached_input_tokens: 12_000,
      cost_usd: 0.2,
    },
    finish_reason: null,
    started_at: '2025-01-02T03:04:05.000Z',
    updated_at: '2025-01-02T03:05:05.000Z',
  };
}
