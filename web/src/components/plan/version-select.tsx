import type { PlanVersion } from '../../api/types.ts';

/** A select of plan versions, newest last. */
export function VersionSelect({
  plans,
  value,
  onChange,
  label,
  testId,
}: {
  plans: readonly PlanVersion[];
  value: number;
  onChange: (version: number) => void;
  label: string;
  testId: string;
}) {
  return (
    <label class="inline-field">
      <span class="small muted">{label}</span>
      <select
        class="select select-sm"
        value={value}
        onChange={(event) => onChange(Number(event.currentTarget.value))}
        data-testid={testId}
      >
        {plans.map((plan) => (
          <option key={plan.version} value={plan.version}>
            v{plan.version}
            {plan.approved ? ' (approved)' : ''}
          </option>
        ))}
      </select>
    </label>
  );
}
