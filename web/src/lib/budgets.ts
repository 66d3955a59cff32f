import type { BudgetLimits, BudgetsRemaining, UsageJson } from '../api/types.ts';
import { formatCost, formatDuration, formatTokens } from './format.ts';
import type { Tone } from './tone.ts';

/** One budget as the page draws it: what was spent against its limit. */
export type BudgetRow = {
  key: 'wall_clock' | 'iterations' | 'tokens' | 'cost';
  label: string;
  /** Null when the run has no limit for it. */
  limit: number | null;
  /** Null when nothing tells how much was spent. */
  used: number | null;
  /** `used / limit`, clamped to 0..1; null without a limit. */
  ratio: number | null;
  tone: Tone;
  format: (value: number) => string;
};

/** A task's budgets: its limits and what is left, as the API reports them. */
export type Budgets = { limits: BudgetLimits; remaining: BudgetsRemaining };

/** The four budgets of a run, from its limits, what remains, and its usage (for budgets without a limit). */
export function budgetRows(budgets: Budgets | null, usage: UsageJson | null): BudgetRow[] {
  const limits = budgets?.limits;
  const remaining = budgets?.remaining;
  return [
    row('wall_clock', 'Wall clock', limits?.max_wall_clock_ms, remaining?.wall_clock_ms, null, formatDuration),
    row('iterations', 'Iterations', limits?.max_iterations, remaining?.iterations, null, (n) => String(n)),
    row('tokens', 'Tokens', limits?.max_total_tokens, remaining?.tokens, usage?.total_tokens, formatTokens),
    row('cost', 'Cost', limits?.max_cost_usd, remaining?.cost_usd, usage?.cost_usd, formatCost),
  ];
}

/** The wall-clock time a task has used: from its budget when it has a limit, else from its timestamps. */
export function timeUsedMs(task: { budgets: Budgets | null; created_at: string; updated_at: string }): number | null {
  const limit = task.budgets?.limits.max_wall_clock_ms;
  const left = task.budgets?.remaining.wall_clock_ms;
  if (typeof limit === 'number' && typeof left === 'number') return Math.max(0, limit - left);
  const span = Date.parse(task.updated_at) - Date.parse(task.created_at);
  return Number.isFinite(span) ? Math.max(0, span) : null;
}

function row(
  key: BudgetRow['key'],
  label: string,
  limit: number | null | undefined,
  remaining: number | null | undefined,
  usedWithoutLimit: number | null | undefined,
  format: (value: number) => string,
): BudgetRow {
  if (typeof limit !== 'number') {
    return { key, label, limit: null, used: usedWithoutLimit ?? null, ratio: null, tone: 'gray', format };
  }
  const used = typeof remaining === 'number' ? Math.max(0, limit - remaining) : (usedWithoutLimit ?? null);
  const ratio = used === null ? null : Math.min(1, used / limit);
  return { key, label, limit, used, ratio, tone: toneOf(ratio), format };
}

function toneOf(ratio: number | null): Tone {
  if (ratio === null || ratio < 0.7) return 'green';
  return ratio < 0.9 ? 'yellow' : 'red';
}
