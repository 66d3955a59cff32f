import { useState } from 'preact/hooks';
import type { PlanVersion } from '../../api/types.ts';
import { Badge } from '../badge.tsx';
import { Card } from '../card.tsx';
import { EmptyState } from '../empty-state.tsx';
import { PlanDiffPanel } from './plan-diff-panel.tsx';
import { PlanView } from './plan-view.tsx';
import { VersionSelect } from './version-select.tsx';

type Tab = 'plan' | 'diff';

/** The task's plan: a version (the current one unless another is picked) with its signature, and the diff tab. */
export function PlanCard({ plans }: { plans: readonly PlanVersion[] }) {
  const [tab, setTab] = useState<Tab>('plan');
  const [picked, setPicked] = useState<number | undefined>(undefined);
  const current = plans[plans.length - 1];
  if (!current) {
    return (
      <Card title="Plan" testId="plan-card">
        <EmptyState title="No plan yet">The run proposes one in its plan phase.</EmptyState>
      </Card>
    );
  }
  const shown = plans.find((plan) => plan.version === picked) ?? current;
  const tabs = (
    <div class="tabs" role="tablist">
      <button
        type="button"
        role="tab"
        class={tab === 'plan' ? 'tab tab-active' : 'tab'}
        aria-selected={tab === 'plan'}
        onClick={() => setTab('plan')}
        data-testid="plan-tab"
      >
        Plan
      </button>
      <button
        type="button"
        role="tab"
        class={tab === 'diff' ? 'tab tab-active' : 'tab'}
        aria-selected={tab === 'diff'}
        disabled={plans.length < 2}
        title={plans.length < 2 ? 'Only one version so far' : undefined}
        onClick={() => setTab('diff')}
        data-testid="plan-diff-tab"
      >
        Changes{plans.length > 1 ? ` (${plans.length} versions)` : ''}
      </button>
    </div>
  );
  return (
    <Card
      title={`Plan v${shown.version}`}
      subtitle={shown === current ? 'current' : `current is v${current.version}`}
      actions={tabs}
      testId="plan-card"
    >
      {tab === 'plan' ? (
        <>
          <div class="plan-meta">
            <div class="plan-signature">
              <span class="label">Signature</span>
              <code class="mono digest-full" data-testid="plan-signature">
                {shown.signature}
              </code>
            </div>
            <div class="plan-meta-badges">
              {shown.approved ? (
                <Badge tone="green" testId="plan-approved">
                  approved
                </Badge>
              ) : (
                <Badge tone="orange" testId="plan-unapproved">
                  not approved
                </Badge>
              )}
              {plans.length > 1 ? (
                <VersionSelect
                  plans={plans}
                  value={shown.version}
                  label="Version"
                  testId="plan-version-select"
                  onChange={setPicked}
                />
              ) : null}
            </div>
          </div>
          {shown.origin ? <div class="muted small plan-origin">{shown.origin}</div> : null}
          <PlanView plan={shown.plan} />
        </>
      ) : (
        <PlanDiffPanel plans={plans} />
      )}
    </Card>
  );
}
