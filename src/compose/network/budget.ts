import { AgencyError } from '../../core/errors.ts';
import { addUsage, emptyUsage, type Usage } from '../../core/usage.ts';

/** What a network and everything it delegates to may spend together. Absent fields are unbounded. */
export type NetworkBudget = {
  /** Total tokens of every model call: the router's and every sub-agent's. */
  maxTokens?: number;
  /** Total cost in US dollars. A model call of unknown price exhausts it, since it cannot be checked. */
  maxCostUsd?: number;
  /** Model calls in all. */
  maxSteps?: number;
};

/** Counts what a network run spends against its budget. */
export type BudgetMeter = {
  /** Charges one model call; calls `onOverrun` once when the spending passes a limit. */
  charge(usage: Usage): void;
  /** The error that stops further model calls, once any limit is reached. */
  exhausted(): AgencyError | undefined;
  /** What is left, for a nested network. */
  remaining(): NetworkBudget;
};

const FIELDS = ['maxTokens', 'maxCostUsd', 'maxSteps'] as const;

/** Throws `invalid_argument` naming the field when a budget value is not a positive number. */
export function checkBudget(owner: string, budget: NetworkBudget): void {
  if (typeof budget !== 'object' || budget === null) {
    throw new AgencyError(
      'invalid_argument',
      `Network "${owner}": "budget" must be an object, e.g. { maxTokens: 50000 }`,
    );
  }
  for (const key of Object.keys(budget)) {
    if (!(FIELDS as readonly string[]).includes(key)) {
      throw new AgencyError(
        'invalid_argument',
        `Network "${owner}": unknown "budget.${key}"; use ${FIELDS.join(', ')}`,
      );
    }
    const value = budget[key as keyof NetworkBudget];
    if (value !== undefined && !(typeof value === 'number' && Number.isFinite(value) && value > 0)) {
      throw new AgencyError('invalid_argument', `Network "${owner}": "budget.${key}" must be a positive number`);
    }
  }
}

/**
 * A meter for one network run. Its limits are the tighter of the network's own budget and what its parent network
 * had left when the run started, so nested networks share one budget.
 */
export function createBudgetMeter(
  own: NetworkBudget,
  inherited: NetworkBudget,
  onOverrun: (error: AgencyError) => void,
): BudgetMeter {
  const limits: NetworkBudget = {};
  for (const field of FIELDS) {
    const value = Math.min(own[field] ?? Infinity, inherited[field] ?? Infinity);
    if (value !== Infinity) limits[field] = value;
  }
  let spent = emptyUsage();
  let steps = 0;
  let overrun = false;

  const over = (atLimit: boolean): AgencyError | undefined => {
    const past = (value: number, limit: number | undefined) =>
      limit !== undefined && (atLimit ? value >= limit : value > limit);
    if (past(spent.totalTokens, limits.maxTokens))
      return budgetError(`${spent.totalTokens} tokens spent of a budget of ${limits.maxTokens}`);
    if (limits.maxCostUsd !== undefined && spent.costUsd === undefined)
      return budgetError(`a model call had no known price, so the cost budget of $${limits.maxCostUsd} cannot be kept`);
    if (past(spent.costUsd ?? 0, limits.maxCostUsd))
      return budgetError(`$${spent.costUsd} spent of a budget of $${limits.maxCostUsd}`);
    if (past(steps, limits.maxSteps)) return budgetError(`${steps} model calls made of a budget of ${limits.maxSteps}`);
    return undefined;
  };

  return {
    charge(usage) {
      spent = addUsage(spent, usage);
      steps++;
      const error = overrun ? undefined : over(false);
      if (error) {
        overrun = true;
        onOverrun(error);
      }
    },
    exhausted: () => over(true),
    remaining() {
      const left: NetworkBudget = {};
      if (limits.maxTokens !== undefined) left.maxTokens = Math.max(0, limits.maxTokens - spent.totalTokens);
      if (limits.maxCostUsd !== undefined)
        left.maxCostUsd = Math.max(0, limits.maxCostUsd - (spent.costUsd ?? Infinity));
      if (limits.maxSteps !== undefined) left.maxSteps = Math.max(0, limits.maxSteps - steps);
      return left;
    },
  };
}

function budgetError(what: string): AgencyError {
  return new AgencyError(
    'budget_exceeded',
    `The network's budget is spent: ${what}. Raise "budget" or split the task.`,
  );
}
