import type { PlanChanges } from '../contracts/approvals.ts';
import type { Plan } from '../contracts/plan.ts';

/**
 * What a new plan version changes against the one approved before it: the goal, the tools it allows, and its steps
 * and acceptance criteria by id (a step or criterion whose content changed is listed as changed). `origin` says where
 * the change came from, e.g. `edited by hand after approval`.
 *
 * @example
 * planChanges(approved, edited, 'edited by hand after approval').tools_added // ['http_post']
 */
export function planChanges(before: Plan, after: Plan, origin: string): PlanChanges {
  const steps = compareById(before.steps, after.steps);
  const acceptance = compareById(before.acceptance, after.acceptance);
  return {
    origin,
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

/** One line for people: `tools +http_post −fs_write; steps changed: s1; acceptance added: a2 (edited by hand…)`. */
export function describeChanges(changes: PlanChanges): string {
  const parts: string[] = [];
  if (changes.goal_changed) parts.push('goal changed');
  const tools = [...changes.tools_added.map((tool) => `+${tool}`), ...changes.tools_removed.map((tool) => `−${tool}`)];
  if (tools.length > 0) parts.push(`tools ${tools.join(' ')}`);
  for (const [label, ids] of [
    ['steps added', changes.steps_added],
    ['steps removed', changes.steps_removed],
    ['steps changed', changes.steps_changed],
    ['acceptance added', changes.acceptance_added],
    ['acceptance removed', changes.acceptance_removed],
    ['acceptance changed', changes.acceptance_changed],
  ] as const) {
    if (ids.length > 0) parts.push(`${label}: ${ids.join(', ')}`);
  }
  return `${parts.length > 0 ? parts.join('; ') : 'no change to goal, tools, steps or acceptance'} (${changes.origin})`;
}

function compareById<T extends { id: string }>(before: readonly T[], after: readonly T[]) {
  const old = new Map(before.map((item) => [item.id, JSON.stringify(item)]));
  const now = new Map(after.map((item) => [item.id, JSON.stringify(item)]));
  return {
    added: [...now.keys()].filter((id) => !old.has(id)),
    removed: [...old.keys()].filter((id) => !now.has(id)),
    changed: [...now.keys()].filter((id) => old.has(id) && old.get(id) !== now.get(id)),
  };
}
