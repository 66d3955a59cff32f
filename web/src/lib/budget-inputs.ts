import type { StartTaskRequest } from '../api/types.ts';

/** The budget fields of a form, as typed: empty means "the server's default". */
export type BudgetInputs = {
  maxIterations: string;
  maxTotalTokens: string;
  maxCostUsd: string;
  /** Minutes, which people think in; the API takes milliseconds. */
  maxWallClockMinutes: string;
};

/** Budgets as the API takes them. */
export type BudgetsInput = NonNullable<StartTaskRequest['budgets']>;

/** Empty budget fields. */
export const EMPTY_BUDGETS: BudgetInputs = {
  maxIterations: '',
  maxTotalTokens: '',
  maxCostUsd: '',
  maxWallClockMinutes: '',
};

/**
 * Reads budget fields: whole positive numbers for iterations and tokens, positive numbers for dollars and minutes.
 * Returns the budgets (undefined when all are empty) or, per field, what is wrong with it.
 */
export function parseBudgets(inputs: BudgetInputs): {
  budgets: BudgetsInput | undefined;
  errors: Partial<Record<keyof BudgetInputs, string>>;
} {
  const errors: Partial<Record<keyof BudgetInputs, string>> = {};
  const budgets: BudgetsInput = {};
  const iterations = readNumber(inputs.maxIterations, true);
  if (iterations === null) errors.maxIterations = 'A whole number above 0.';
  else if (iterations !== undefined) budgets.max_iterations = iterations;
  const tokens = readNumber(inputs.maxTotalTokens, true);
  if (tokens === null) errors.maxTotalTokens = 'A whole number above 0.';
  else if (tokens !== undefined) budgets.max_total_tokens = tokens;
  const cost = readNumber(inputs.maxCostUsd, false);
  if (cost === null) errors.maxCostUsd = 'An amount in dollars above 0, e.g. 0.50.';
  else if (cost !== undefined) budgets.max_cost_usd = cost;
  const minutes = readNumber(inputs.maxWallClockMinutes, false);
  if (minutes === null) errors.maxWallClockMinutes = 'Minutes above 0, e.g. 30 or 1.5.';
  else if (minutes !== undefined) budgets.max_wall_clock_ms = Math.round(minutes * 60_000);
  return { budgets: Object.keys(budgets).length > 0 ? budgets : undefined, errors };
}

// undefined: empty; null: not a valid value.
function readNumber(text: string, whole: boolean): number | undefined | null {
  const trimmed = text.trim().replace(/[_,\s]/g, '');
  if (trimmed === '') return undefined;
  if (!/^\d*\.?\d+$/.test(trimmed)) return null;
  const value = Number(trimmed);
  if (!Number.isFinite(value) || value <= 0) return null;
  if (whole && !Number.isInteger(value)) return null;
  return value;
}
