import { useState } from 'preact/hooks';
import { api } from '../api/client.ts';
import { Card } from '../components/card.tsx';
import { EmptyState } from '../components/empty-state.tsx';
import { ErrorAlert } from '../components/error-alert.tsx';
import { FilterChips } from '../components/filter-chips.tsx';
import { Link } from '../components/link.tsx';
import { PageHeader } from '../components/page-header.tsx';
import { Pager } from '../components/pager.tsx';
import { Loading } from '../components/spinner.tsx';
import { TaskTable } from '../components/task-table.tsx';
import { navigate } from '../hooks/use-location.ts';
import { useNow } from '../hooks/use-now.ts';
import { useResource } from '../hooks/use-resource.ts';
import { parseTaskListFilter, TASK_LIST_FILTERS, type TaskListFilter } from '../lib/status.ts';

const PAGE_SIZE = 25;

/** Every task, newest first, filtered by the chip in the address bar (`?status=`), a page at a time. */
export function TasksPage({ search }: { search: URLSearchParams }) {
  const filter = parseTaskListFilter(search.get('status'));
  // The cursors of the pages before this one, so "Newer" can go back; reset when the filter changes.
  const [trail, setTrail] = useState<{ filter: TaskListFilter; cursors: string[] }>({ filter, cursors: [] });
  const cursors = trail.filter === filter ? trail.cursors : [];
  const cursor = cursors[cursors.length - 1];
  const now = useNow();
  const tasks = useResource(
    () => api.listTasks({ status: filter === 'all' ? undefined : filter, cursor, limit: PAGE_SIZE }),
    `${filter}|${cursor ?? ''}`,
    { pollMs: 5_000 },
  );
  const choose = (next: TaskListFilter): void => {
    setTrail({ filter: next, cursors: [] });
    navigate(next === 'all' ? '/' : `/?status=${next}`);
  };
  const label = TASK_LIST_FILTERS.find((item) => item.value === filter)?.label ?? 'All';
  const items = tasks.data?.items ?? [];

  return (
    <div class="page" data-testid="tasks-page">
      <PageHeader
        pretitle="Overview"
        title="Tasks"
        actions={
          <Link href="/new" class="btn btn-primary" data-testid="tasks-new">
            + New task
          </Link>
        }
      />
      <Card flush title={<FilterChips value={filter} onChange={choose} />}>
        <ErrorAlert message={tasks.error} onRetry={tasks.reload} />
        {tasks.data === undefined && tasks.loading ? <Loading label="Loading tasks…" /> : null}
        {tasks.data !== undefined && items.length === 0 ? (
          <EmptyState
            title={filter === 'all' ? 'No tasks yet' : `No tasks: ${label.toLowerCase()}`}
            testId="tasks-empty"
          >
            {filter === 'all' ? (
              <>
                Start one from <Link href="/new">New task</Link>, with <code>curl</code>, or from the CLI.
              </>
            ) : (
              'Nothing matches this filter right now.'
            )}
          </EmptyState>
        ) : null}
        {items.length > 0 ? <TaskTable tasks={items} now={now} /> : null}
        <Pager
          page={cursors.length + 1}
          hasPrevious={cursors.length > 0}
          hasNext={Boolean(tasks.data?.next_cursor)}
          onPrevious={() => setTrail({ filter, cursors: cursors.slice(0, -1) })}
          onNext={() => {
            const next = tasks.data?.next_cursor;
            if (next) setTrail({ filter, cursors: [...cursors, next] });
          }}
        />
      </Card>
    </div>
  );
}
