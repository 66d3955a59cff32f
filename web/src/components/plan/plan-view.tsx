import type { Plan } from '../../api/types.ts';
import { ToolChips } from './tool-chips.tsx';

/** A plan to read: its goal, steps (with the tools each uses), allowed tools and acceptance criteria. */
export function PlanView({ plan, testId = 'plan-view' }: { plan: Plan; testId?: string }) {
  return (
    <div class="plan" data-testid={testId}>
      <div class="plan-goal">
        <span class="label">Goal</span>
        <p>{plan.goal}</p>
      </div>
      <div class="plan-section">
        <span class="label">Allowed tools</span>
        <ToolChips tools={plan.allowed_tools} testId="plan-allowed-tools" />
      </div>
      <div class="plan-section">
        <span class="label">Steps</span>
        <ol class="plan-steps">
          {plan.steps.map((step) => (
            <li key={step.id} data-step-id={step.id}>
              <div class="plan-step-head">
                <code class="mono plan-id">{step.id}</code>
                <span class="plan-step-title">{step.title}</span>
              </div>
              {step.description ? <p class="muted small">{step.description}</p> : null}
              {step.tools && step.tools.length > 0 ? <ToolChips tools={step.tools} /> : null}
            </li>
          ))}
        </ol>
      </div>
      <div class="plan-section">
        <span class="label">Acceptance</span>
        <ul class="plan-acceptance">
          {plan.acceptance.map((item) => (
            <li key={item.id} data-acceptance-id={item.id}>
              <code class="mono plan-id">{item.id}</code>
              <span>{item.criterion}</span>
              {item.check ? (
                <span class="check-tag" title={JSON.stringify(item.check)}>
                  {item.check.type}
                  {'path' in item.check ? ` · ${item.check.path}` : ''}
                </span>
              ) : null}
            </li>
          ))}
        </ul>
      </div>
    </div>
  );
}
