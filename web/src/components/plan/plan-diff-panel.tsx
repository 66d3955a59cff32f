import { useState } from 'preact/hooks';
import type { PlanVersion } from '../../api/types.ts';
import { diffPlans, planText } from '../../lib/plan-diff.ts';
import { LineDiffView } from './line-diff-view.tsx';
import { PlanChanges } from './plan-changes.tsx';
import { VersionSelect } from './version-select.tsx';

/** Two plan versions side by side in time: what changed by id, and the JSON as a unified diff. */
export function PlanDiffPanel({ plans }: { plans: readonly PlanVersion[] }) {
  const latest = plans[plans.length - 1]?.version ?? 1;
  const [picked, setPicked] = useState<{ from: number; to: number } | undefined>(undefined);
  const to = picked?.to ?? latest;
  const from = picked?.from ?? Math.max(1, to - 1);
  const before = plans.find((plan) => plan.version === from);
  const after = plans.find((plan) => plan.version === to);
  if (!before || !after) return null;
  return (
    <div class="plan-diff" data-testid="plan-diff">
      <div class="plan-diff-controls">
        <VersionSelect
          plans={plans}
          value={from}
          label="From"
          testId="plan-diff-from"
          onChange={(version) => setPicked({ from: version, to })}
        />
        <span class="muted">→</span>
        <VersionSelect
          plans={plans}
          value={to}
          label="To"
          testId="plan-diff-to"
          onChange={(version) => setPicked({ from, to: version })}
        />
      </div>
      <PlanChanges changes={diffPlans(before.plan, after.plan)} origin={after.origin ?? after.changes?.origin} />
      <LineDiffView before={planText(before.plan)} after={planText(after.plan)} />
    </div>
  );
}
