import { roundUsd } from '../core/model-prices.ts';
import { addUsage, emptyUsage, type Usage } from '../core/usage.ts';
import type { BudgetsRemaining, UsageJson } from './contracts/events.ts';
import type { BudgetLimits, StopReason } from './contracts/state.ts';

/** Tracks what a run has spent against its limits. */
export type BudgetTracker = {
  readonly limits: BudgetLimits;
  readonly usage: Usage;
  readonly iterations: number;
  readonly consecutiveToolIterations: number;
  elapsedMs(): number;
  /** Whether Verify is running: the reserve is held back from every other phase. */
  setVerifying(verifying: boolean): void;
  /** The budget a model call would break, judged before it is made from an estimate of its size. */
  checkBeforeCall(estimate: { tokens: number; costUsd: number | undefined }): StopReason | undefined;
  /** Records a finished model call; returns the budget it broke, if any. */
  recordCall(usage: Usage, madeToolCalls: boolean): StopReason | undefined;
  /** The wall-clock budget, if it has run out. */
  checkWallClock(): StopReason | undefined;
  remaining(): BudgetsRemaining;
};

/** Where a tracker starts: fresh, or from a resumed run's journal. */
export type BudgetStart = {
  usage?: Usage;
  iterations?: number;
  consecutiveToolIterations?: number;
  elapsedMs?: number;
};

/**
 * Creates a tracker. Token and cost limits are checked before each call against an estimate and after it against
 * the real usage, so a run overspends by at most the one call in flight. A cost that became unknown counts as over
 * the cost limit.
 */
export function createBudgetTracker(
  limits: BudgetLimits,
  start: BudgetStart = {},
  now: () => number = Date.now,
): BudgetTracker {
  let usage = start.usage ?? emptyUsage();
  let iterations = start.iterations ?? 0;
  let consecutive = start.consecutiveToolIterations ?? 0;
  let verifying = false;
  const sessionStart = now();
  const priorElapsed = start.elapsedMs ?? 0;
  // Every phase but Verify runs against the limit minus the Verify reserve.
  const effective = (limit: number | null): number | null =>
    limit === null || verifying ? limit : limit * (1 - limits.verify_reserve);
  const elapsedMs = () => priorElapsed + (now() - sessionStart);

  const overAfter = (): StopReason | undefined => {
    const tokens = effective(limits.max_total_tokens);
    if (tokens !== null && usage.totalTokens > tokens) return 'budget.tokens';
    const cost = effective(limits.max_cost_usd);
    // An unknown cost fails closed: the run cannot show it is under its budget. (Runs refuse to start with an
    // unpriced model, so this is a backstop, e.g. for a run resumed from a journal that recorded no cost.)
    if (cost !== null && (usage.costUsd === undefined || usage.costUsd > cost)) return 'budget.cost';
    return undefined;
  };

  return {
    limits,
    get usage() {
      return usage;
    },
    get iterations() {
      return iterations;
    },
    get consecutiveToolIterations() {
      return consecutive;
    },
    elapsedMs,
    setVerifying(value) {
      verifying = value;
    },
    checkBeforeCall(estimate) {
      const wall = this.checkWallClock();
      if (wall) return wall;
      const maxIterations = effective(limits.max_iterations);
      if (maxIterations !== null && iterations + 1 > Math.floor(maxIterations)) return 'budget.iterations';
      if (limits.max_consecutive_tool_iterations !== null && consecutive >= limits.max_consecutive_tool_iterations) {
        return 'budget.consecutive_tool_iterations';
      }
      const tokens = effective(limits.max_total_tokens);
      if (tokens !== null && usage.totalTokens + estimate.tokens > tokens) return 'budget.tokens';
      const cost = effective(limits.max_cost_usd);
      if (cost !== null && usage.costUsd === undefined) return 'budget.cost';
      if (cost !== null && usage.costUsd !== undefined && usage.costUsd + (estimate.costUsd ?? 0) > cost) {
        return 'budget.cost';
      }
      return undefined;
    },
    recordCall(callUsage, madeToolCalls) {
      usage = addUsage(usage, callUsage);
      iterations++;
      consecutive = madeToolCalls ? consecutive + 1 : 0;
      return overAfter();
    },
    checkWallClock() {
      const wall = effective(limits.max_wall_clock_ms);
      return wall !== null && elapsedMs() >= wall ? 'budget.wall_clock' : undefined;
    },
    remaining() {
      return {
        wall_clock_ms: limits.max_wall_clock_ms === null ? null : Math.max(0, limits.max_wall_clock_ms - elapsedMs()),
        iterations: limits.max_iterations === null ? null : Math.max(0, limits.max_iterations - iterations),
        tokens: limits.max_total_tokens === null ? null : Math.max(0, limits.max_total_tokens - usage.totalTokens),
        cost_usd:
          limits.max_cost_usd === null || usage.costUsd === undefined
            ? null
            : Math.max(0, roundUsd(limits.max_cost_usd - usage.costUsd)),
      };
    },
  };
}

/** Usage as written to journal frames and state files. */
export function usageToJson(usage: Usage): UsageJson {
  return {
    input_tokens: usage.inputTokens,
    output_tokens: usage.outputTokens,
    total_tokens: usage.totalTokens,
    reasoning_tokens: usage.reasoningTokens,
    cached_input_tokens: usage.cachedInputTokens,
    cost_usd: usage.costUsd ?? null,
  };
}

/** Reverses {@link usageToJson}. */
export function usageFromJson(json: UsageJson): Usage {
  return {
    inputTokens: json.input_tokens,
    outputTokens: json.output_tokens,
    totalTokens: json.total_tokens,
    reasoningTokens: json.reasoning_tokens,
    cachedInputTokens: json.cached_input_tokens,
    cacheWriteTokens: 0,
    ...(json.cost_usd === null ? {} : { costUsd: json.cost_usd }),
  };
}
