import { isUnchanged, type PlanDiff } from '../../lib/plan-diff.ts';

const GROUPS = [
  { label: 'Tools', added: 'tools_added', removed: 'tools_removed', changed: null },
  { label: 'Steps', added: 'steps_added', removed: 'steps_removed', changed: 'steps_changed' },
  { label: 'Acceptance', added: 'acceptance_added', removed: 'acceptance_removed', changed: 'acceptance_changed' },
] as const;

/** What a plan version changes, as added (+), removed (−) and changed (~) ids per part of the plan. */
export function PlanChanges({
  changes,
  origin,
  testId = 'plan-changes',
}: {
  changes: PlanDiff;
  origin?: string | null;
  testId?: string;
}) {
  return (
    <div class="changes" data-testid={testId}>
      {origin ? <div class="changes-origin muted small">{origin}</div> : null}
      {isUnchanged(changes) ? <div class="muted small">No changes to goal, tools, steps or acceptance.</div> : null}
      {changes.goal_changed ? (
        <div class="changes-row">
          <span class="changes-label">Goal</span>
          <span class="change change-changed">~ changed</span>
        </div>
      ) : null}
      {GROUPS.map((group) => {
        const added = changes[group.added];
        const removed = changes[group.removed];
        const changed = group.changed ? changes[group.changed] : [];
        if (added.length + removed.length + changed.length === 0) return null;
        return (
          <div class="changes-row" key={group.label} data-group={group.label.toLowerCase()}>
            <span class="changes-label">{group.label}</span>
            {added.map((id) => (
              <code class="change change-added" key={`+${id}`} data-change="added">
                + {id}
              </code>
            ))}
            {removed.map((id) => (
              <code class="change change-removed" key={`-${id}`} data-change="removed">
                − {id}
              </code>
            ))}
            {changed.map((id) => (
              <code class="change change-changed" key={`~${id}`} data-change="changed">
                ~ {id}
              </code>
            ))}
          </div>
        );
      })}
    </div>
  );
}
