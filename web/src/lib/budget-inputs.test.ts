import { describe, expect, it } from 'vitest';
import { EMPTY_BUDGETS, parseBudgets } from './budget-inputs.ts';

describe('parseBudgets', () => {
  it('leaves budgets out when every field is empty', () => {
    expect(parseBudgets(EMPTY_BUDGETS)).toEqual({ budgets: undefined, errors: {} });
  });

  it('reads each field into the API unit', () => {
    const parsed = parseBudgets({
      maxIterations: '12',
      maxTotalTokens: '200,000',
      maxCostUsd: '0.5',
      maxWallClockMinutes: '1.5',
    });
    expect(parsed).toEqual({
      budgets: { max_iterations: 12, max_total_tokens: 200_000, max_cost_usd: 0.5, max_wall_clock_ms: 90_000 },
      errors: {},
    });
  });

  it('names each bad field', () => {
    const parsed = parseBudgets({
      maxIterations: '2.5',
      maxTotalTokens: '-3',
      maxCostUsd: 'ten',
      maxWallClockMinutes: '0',
    });
    expect(Object.keys(parsed.errors).sort()).toEqual([
      'maxCostUsd',
      'maxIterations',
      'maxTotalTokens',
      'maxWallClockMinutes',
    ]);
  });
});
