import { fleetApi, fleetEventsUrl } from '../../api/client.ts';
import type { FleetTaskSummary } from '../../api/types.ts';
import { useEventStream } from '../../hooks/use-event-stream.ts';
import { useResource } from '../../hooks/use-resource.ts';
import { taskStateLabel, taskTone } from '../../lib/fleet.ts';
import { formatAge } from '../../lib/format.ts';
import { Badge } from '../badge.tsx';
import { Card } from '../card.tsx';
import { ErrorAlert } from '../error-alert.tsx';
import { Timeline } from '../timeline/timeline.tsx';

const SHOWN = 20;

type FleetTasksProps = { open: string | undefined; onOpen: (id: string | undefined) => void; now: number };

/**
 * The newest tasks of the fleet's database, on any worker (a server with AGENCY_DATABASE_URL); the one opened shows
 * its live timeline below, read by the server from the database.
 */
export function FleetTasks({ open, onOpen, now }: FleetTasksProps) {
  const tasks = useResource(() => fleetApi.tasks(SHOWN), 'fleet-tasks', { pollMs: 2_000 });
  const items = tasks.data?.items ?? [];
  return (
    <>
      <Card title="Fleet tasks" subtitle="newest first, on any worker" flush testId="fleet-tasks">
        <ErrorAlert message={tasks.error} testId="fleet-tasks-error" />
        {items.length === 0 && tasks.data ? <p class="small muted fleet-tasks-empty">No tasks yet.</p> : null}
        {items.length > 0 ? (
          <div class="table-wrap">
            <table class="table">
              <thead>
                <tr>
                  <th>Task</th>
                  <th>Worker</th>
                  <th>State</th>
                  <th>Prompt</th>
                  <th>Updated</th>
                </tr>
              </thead>
              <tbody>
                {items.map((task) => (
                  <TaskRow key={task.id} task={task} open={task.id === open} onOpen={onOpen} now={now} />
                ))}
              </tbody>
            </table>
          </div>
        ) : null}
      </Card>
      {open ? <FleetTaskTimeline key={open} id={open} onClose={() => onOpen(undefined)} /> : null}
    </>
  );
}

function TaskRow({
  task,
  open,
  onOpen,
  now,
}: {
  task: FleetTaskSummary;
  open: boolean;
  onOpen: FleetTasksProps['onOpen'];
  now: number;
}) {
  return (
    <tr
      data-testid="fleet-tasks-row"
      data-task-id={task.id}
      data-state={task.state}
      class={open ? 'row-open' : undefined}
    >
      <td>
        <button
          type="button"
          class="btn btn-sm btn-ghost mono"
          onClick={() => onOpen(task.id)}
          data-testid="fleet-tasks-open"
        >
          {task.id}
        </button>
      </td>
      <td>{task.worker ?? '—'}</td>
      <td>
        <Badge tone={taskTone(task.state)}>{taskStateLabel(task.state)}</Badge>
      </td>
      <td class="small fleet-prompt" title={task.prompt}>
        {task.prompt}
      </td>
      <td class="small">{formatAge(task.updated_at, now)}</td>
    </tr>
  );
}

/** A fleet task's events, live from the server (which follows the fleet's database): the dashboard's one timeline. */
export function FleetTaskTimeline({ id, onClose }: { id: string; onClose: () => void }) {
  const stream = useEventStream(id, { url: fleetEventsUrl });
  return (
    <div class="fleet-task-timeline" data-testid="fleet-task-timeline" data-task-id={id}>
      <div class="fleet-monitor-head">
        <span class="mono small">{id}</span>
        <button
          type="button"
          class="btn btn-sm btn-ghost fleet-close"
          onClick={onClose}
          data-testid="fleet-timeline-close"
        >
          Close
        </button>
      </div>
      <Timeline frames={stream.frames} state={stream.state} />
    </div>
  );
}
