import type { BudgetInputs } from '../../lib/budget-inputs.ts';

const FIELDS: Array<{ key: keyof BudgetInputs; label: string; placeholder: string; suffix: string; testId: string }> = [
  {
    key: 'maxIterations',
    label: 'Max iterations',
    placeholder: 'e.g. 20',
    suffix: 'model calls',
    testId: 'budget-max-iterations',
  },
  {
    key: 'maxTotalTokens',
    label: 'Max total tokens',
    placeholder: 'e.g. 200000',
    suffix: 'tokens',
    testId: 'budget-max-tokens',
  },
  { key: 'maxCostUsd', label: 'Max cost', placeholder: 'e.g. 0.50', suffix: 'USD', testId: 'budget-max-cost' },
  {
    key: 'maxWallClockMinutes',
    label: 'Max wall clock',
    placeholder: 'e.g. 30',
    suffix: 'minutes',
    testId: 'budget-max-wall-clock',
  },
];

type BudgetFieldsProps = {
  values: BudgetInputs;
  errors: Partial<Record<keyof BudgetInputs, string>>;
  onChange: (values: BudgetInputs) => void;
  /** Prefixes the test ids, for a second set on one page. */
  testIdPrefix?: string;
};

/** The four budget inputs, each with its unit; empty means the server's default. */
export function BudgetFields({ values, errors, onChange, testIdPrefix = '' }: BudgetFieldsProps) {
  return (
    <div class="form-grid">
      {FIELDS.map((field) => (
        <label class="field" key={field.key}>
          <span class="field-label">{field.label}</span>
          <div class={errors[field.key] ? 'input-group input-invalid' : 'input-group'}>
            <input
              class="input"
              inputMode="decimal"
              placeholder={field.placeholder}
              value={values[field.key]}
              onInput={(event) => onChange({ ...values, [field.key]: event.currentTarget.value })}
              data-testid={`${testIdPrefix}${field.testId}`}
            />
            <span class="input-suffix">{field.suffix}</span>
          </div>
          {errors[field.key] ? <span class="field-error">{errors[field.key]}</span> : null}
        </label>
      ))}
    </div>
  );
}
