import type { StateFile } from '../../src/task/contracts/state.ts';

/** A typical `progress/state.json` (about 1 KB), valid against `agent.state.v1`, with `overrides` applied. */
export function sampleState(overrides: Partial<StateFile> = {}): StateFile {
  return {
    version: 'agent.state.v1',
    task_id: 'task_01JD3Z8W2X4N6Q8R0T2V4X6Z8B',
    loop: { name: 'governed', version: '1.0.0' },
    phase: 'act',
    status: 'running',
    plan_sig: 'a'.repeat(64),
    approved_plan_sig: 'a'.repeat(64),
    last_step_id: 'step_01JD3Z8W2X4N6Q8R0T2V4X6Z8C',
    last_seq: 0,
    steps_done: 3,
    verify_attempts: 0,
    budgets: {
      limits: {
        max_wall_clock_ms: 600_000,
        max_iterations: 50,
        max_consecutive_tool_iterations: 10,
        tool_timeout_ms: 60_000,
        max_total_tokens: 500_000,
        max_cost_usd: 5,
        verify_reserve: 0.1,
      },
      remaining: { wall_clock_ms: 540_000, iterations: 47, tokens: 480_000, cost_usd: 4.8 },
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
    ...overrides,
  };
}
