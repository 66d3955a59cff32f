import type { Plan, PlanChanges } from '../api/types.ts';

/** What one plan changes against another, by step and criterion id: the shape of the run's own `changes`. */
export type PlanDiff = Omit<PlanChanges, 'origin'>;

/** Compares two plans the way the run does: tools by name, steps and acceptance criteria by id. */
export function diffPlans(before: Plan, after: Plan): PlanDiff {
  const steps = diffById(before.steps, after.steps);
  const acceptance = diffById(before.acceptance, after.acceptance);
  return {
    goal_changed: before.goal !== after.goal,
    tools_added: after.allowed_tools.filter((tool) => !before.allowed_tools.includes(tool)),
    tools_removed: before.allowed_tools.filter((tool) => !after.allowed_tools.includes(tool)),
    steps_added: steps.added,
    steps_removed: steps.removed,
    steps_changed: steps.changed,
    acceptance_added: acceptance.added,
    acceptance_removed: acceptance.removed,
    acceptance_changed: acceptance.changed,
  };
}

/** True when a diff (or a run's `changes`) records no change at all. */
export function isUnchanged(diff: PlanDiff): boolean {
  return (
    !diff.goal_changed &&
    [
      diff.tools_added,
      diff.tools_removed,
      diff.steps_added,
      diff.steps_removed,
      diff.steps_changed,
      diff.acceptance_added,
      diff.acceptance_removed,
      diff.acceptance_changed,
    ].every((ids) => ids.length === 0)
  );
}

/** A plan as the text the diff view compares: stable two-space JSON. */
export function planText(plan: Plan): string {
  return JSON.stringify(plan, null, 2);
}

function diffById<T extends { id: string }>(
  before: readonly T[],
  after: readonly T[],
): { added: string[]; removed: string[]; changed: string[] } {
  const old = new Map(before.map((item) => [item.id, item]));
  const now = new Map(after.map((item) => [item.id, item]));
  return {
    added: after.filter((item) => !old.has(item.id)).map((item) => item.id),
    removed: before.filter((item) => !now.has(item.id)).map((item) => item.id),
    changed: after
      .filter((item) => {
        const previous = old.get(item.id);
        return previous !== undefined && stableJson(previous) !== stableJson(item);
      })
      .map((item) => item.id),
  };
}

// Key order is not a change: plans are signed over canonical JSON, where it does not count either.
function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, field]) => field !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, field]) => `${JSON.stringify(key)}:${stableJson(field)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}
