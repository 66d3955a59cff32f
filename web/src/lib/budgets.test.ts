import { describe, expect, it } from 'vitest';
import { budgetRows, timeUsedMs } from './budgets.ts';

const limits = {
  max_wall_clock_ms: 600_000,
  max_iterations: 20,
  max_consecutive_tool_iterations: null,
  tool_timeout_ms: null,
  max_total_tokens: 100_000,
  max_cost_usd: null,
  verify_reserve: 0.1,
};
const usage = {
  input_tokens: 0,
  output_tokens: 0,
  total_tokens: 95_000,
  reasoning_tokens: 0,
  cached_input_tokens: 0,
  cost_usd: 0.42,
};

describe('budgetRows', () => {
  it('turns limits and what remains into spent ratios with a tone', () => {
    const rows = budgetRows(
      { limits, remaining: { wall_clock_ms: 450_000, iterations: 5, tokens: 5_000, cost_usd: null } },
      usage,
    );
    expect(rows.map(({ key, used, ratio, tone }) => ({ key, used, ratio, tone }))).toEqual([
      { key: 'wall_clock', used: 150_000, ratio: 0.25, tone: 'green' },
      { key: 'iterations', used: 15, ratio: 0.75, tone: 'yellow' },
      { key: 'tokens', used: 95_000, ratio: 0.95, tone: 'red' },
      // No cost limit: what was spent comes from usage, with no bar.
      { key: 'cost', used: 0.42, ratio: null, tone: 'gray' },
    ]);
  });

  it('clamps an overspent budget at a full bar', () => {
    const rows = budgetRows(
      { limits, remaining: { wall_clock_ms: -5, iterations: 0, tokens: -10, cost_usd: null } },
      null,
    );
    expect(rows[0]?.ratio).toBe(1);
    expect(rows[2]?.used).toBe(100_010);
  });

  it('has rows without budgets', () => {
    expect(budgetRows(null, usage).map((row) => row.used)).toEqual([null, null, 95_000, 0.42]);
  });
});

describe('timeUsedMs', () => {
  it('prefers the wall-clock budget and falls back to timestamps', () => {
    const remaining = { wall_clock_ms: 500_000, iterations: null, tokens: null, cost_usd: null };
    const times = { created_at: '2026-11-21T12:00:00Z', updated_at: '2026-11-21T12:00:30Z' };
    expect(timeUsedMs({ budgets: { limits, remaining }, ...times })).toBe(100_000);
    expect(timeUsedMs({ budgets: null, ...times })).toBe(30_000);
  });
});
