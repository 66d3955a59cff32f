import { TASK_LIST_FILTERS, type TaskListFilter } from '../lib/status.ts';

/** The task list's filters as a row of chips; the active one is highlighted. */
export function FilterChips({
  value,
  onChange,
}: {
  value: TaskListFilter;
  onChange: (filter: TaskListFilter) => void;
}) {
  return (
    <div class="chips" role="group" aria-label="Filter tasks">
      {TASK_LIST_FILTERS.map((filter) => (
        <button
          key={filter.value}
          type="button"
          class={filter.value === value ? 'chip chip-active' : 'chip'}
          aria-pressed={filter.value === value}
          onClick={() => onChange(filter.value)}
          data-testid={`filter-chip-${filter.value}`}
        >
          {filter.label}
        </button>
      ))}
    </div>
  );
}
