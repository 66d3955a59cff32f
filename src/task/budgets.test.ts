import { describe, expect, it } from 'vitest';
import { emptyUsage, type Usage } from '../core/usage.ts';
import { createBudgetTracker } from './budgets.ts';
import type { BudgetLimits } from './contracts/state.ts';

const limits: BudgetLimits = {
  max_wall_clock_ms: null,
  max_iterations: null,
  max_consecutive_tool_iterations: null,
  tool_timeout_ms: null,
  max_total_tokens: null,
  max_cost_usd: 1,
  verify_reserve: 0,
};

const call = (costUsd: number | undefined): Usage => {
  const { costUsd: _free, ...tokens } = { ...emptyUsage(), inputTokens: 10, outputTokens: 5, totalTokens: 15 };
  return costUsd === undefined ? tokens : { ...tokens, costUsd };
};

describe('the cost budget fails closed', () => {
  it('counts a call of unknown cost as over the limit, instead of as free', () => {
    const tracker = createBudgetTracker(limits);
    expect(tracker.recordCall(call(0.01), false)).toBeUndefined();
    expect(tracker.recordCall(call(undefined), false)).toBe('budget.cost');
    expect(tracker.checkBeforeCall({ tokens: 10, costUsd: 0.01 })).toBe('budget.cost');
  });

  it('checks the spend so far before a call even when the call cannot be estimated', () => {
    const tracker = createBudgetTracker(limits, { usage: { ...call(1.5) } });
    expect(tracker.checkBeforeCall({ tokens: 10, costUsd: undefined })).toBe('budget.cost');
  });

  it('leaves runs without a cost budget alone', () => {
    const tracker = createBudgetTracker({ ...limits, max_cost_usd: null });
    expect(tracker.recordCall(call(undefined), false)).toBeUndefined();
    expect(tracker.checkBeforeCall({ tokens: 10, costUsd: undefined })).toBeUndefined();
  });
});
