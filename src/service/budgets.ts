import type { StartTaskRequest } from '../api/schemas.ts';
import type { Budgets } from '../task/task-spec.ts';

/** The API's snake_case budgets as the runner's `Budgets`, with only the fields given. */
export function toBudgets(budgets: NonNullable<StartTaskRequest['budgets']>): Budgets {
  const out: Budgets = {};
  if (budgets.max_wall_clock_ms !== undefined) out.maxWallClockMs = budgets.max_wall_clock_ms;
  if (budgets.max_iterations !== undefined) out.maxIterations = budgets.max_iterations;
  if (budgets.max_consecutive_tool_iterations !== undefined)
    out.maxConsecutiveToolIterations = budgets.max_consecutive_tool_iterations;
  if (budgets.tool_timeout_ms !== undefined) out.toolTimeoutMs = budgets.tool_timeout_ms;
  if (budgets.max_total_tokens !== undefined) out.maxTotalTokens = budgets.max_total_tokens;
  if (budgets.max_cost_usd !== undefined) out.maxCostUsd = budgets.max_cost_usd;
  if (budgets.verify_reserve !== undefined) out.verifyReserve = budgets.verify_reserve;
  return out;
}
