import type { UsageJson } from '../../api/types.ts';
import { budgetRows, type Budgets } from '../../lib/budgets.ts';
import { Card } from '../card.tsx';

/** Each budget as a bar of what was spent against its limit; budgets without a limit show what was spent. */
export function BudgetBars({ budgets, usage }: { budgets: Budgets | null; usage: UsageJson | null }) {
  const rows = budgetRows(budgets, usage);
  return (
    <Card title="Budgets" testId="budgets">
      <div class="budgets">
        {rows.map((row) => (
          <div class="budget" key={row.key} data-testid={`budget-${row.key}`} data-ratio={row.ratio ?? ''}>
            <div class="budget-head">
              <span class="budget-label">{row.label}</span>
              <span class="budget-value">
                {row.used === null ? '—' : row.format(row.used)}
                <span class="muted"> / {row.limit === null ? 'no limit' : row.format(row.limit)}</span>
              </span>
            </div>
            <div
              class="progress"
              role="progressbar"
              aria-label={row.label}
              aria-valuemin={0}
              aria-valuemax={100}
              aria-valuenow={row.ratio === null ? undefined : Math.round(row.ratio * 100)}
            >
              {row.ratio === null ? (
                <div class="progress-none" />
              ) : (
                <div
                  class={`progress-bar bg-${row.tone}`}
                  style={{ width: `${Math.max(row.ratio * 100, row.ratio > 0 ? 2 : 0)}%` }}
                />
              )}
            </div>
            {row.ratio !== null && row.limit !== null && row.used !== null ? (
              <div class="budget-foot small muted">
                {Math.round(row.ratio * 100)}% used · {row.format(Math.max(0, row.limit - row.used))} left
              </div>
            ) : null}
          </div>
        ))}
      </div>
    </Card>
  );
}
