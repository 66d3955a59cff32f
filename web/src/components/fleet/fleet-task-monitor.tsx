import { useEffect, useState } from 'preact/hooks';
import { messageOf } from '../../api/api-error.ts';
import { fleetApi } from '../../api/client.ts';
import type { FleetTask } from '../../api/types.ts';
import { useNow } from '../../hooks/use-now.ts';
import { useResource } from '../../hooks/use-resource.ts';
import { isFinalTask, taskStateLabel, taskTone } from '../../lib/fleet.ts';
import { formatClock, formatDuration } from '../../lib/format.ts';
import { Badge } from '../badge.tsx';
import { ErrorAlert } from '../error-alert.tsx';

type MonitorProps = { worker: string; taskId: string; onClose: () => void; onChanged: () => void };

const LOG_LINES = 8;

/**
 * One task on a worker, followed until it is final: its state, elapsed time, lifecycle lines, and its output once a
 * turn is over; cancel while it runs; continue or end while its session is idle.
 */
export function FleetTaskMonitor({ worker, taskId, onClose, onChanged }: MonitorProps) {
  const [final, setFinal] = useState(false);
  const task = useResource(() => fleetApi.task(worker, taskId), `${worker}/${taskId}`, {
    pollMs: final ? undefined : 1_000,
  });
  const now = useNow(1_000);
  const [error, setError] = useState<string | undefined>(undefined);
  const data = task.data;
  useEffect(() => setFinal(data ? isFinalTask(data.state) : false), [data?.state]);

  const act = async (call: () => Promise<unknown>): Promise<void> => {
    setError(undefined);
    try {
      await call();
    } catch (failure) {
      setError(messageOf(failure));
    }
    task.reload();
    onChanged();
  };

  return (
    <div class="fleet-monitor" data-testid="fleet-task" data-task-id={taskId} data-state={data?.state ?? 'loading'}>
      <div class="fleet-monitor-head">
        <span class="mono small">{taskId}</span>
        {data ? (
          <Badge tone={taskTone(data.state)} testId="fleet-task-state">
            {taskStateLabel(data.state)}
          </Badge>
        ) : null}
        {data ? (
          <span class="small muted" data-testid="fleet-task-elapsed">
            {elapsed(data, now)} · turn {data.turns}
          </span>
        ) : null}
        <button type="button" class="btn btn-sm btn-ghost fleet-close" onClick={onClose} data-testid="fleet-task-close">
          Close
        </button>
      </div>
      <ErrorAlert message={error ?? task.error} testId="fleet-monitor-error" />
      {data ? <TaskBody task={data} /> : null}
      {data ? <TaskControls task={data} act={act} worker={worker} /> : null}
    </div>
  );
}

function TaskBody({ task }: { task: FleetTask }) {
  const turnOver = task.state !== 'queued' && task.state !== 'working' && task.state !== 'cancelling';
  return (
    <>
      <div class="small fleet-prompt" title={task.prompt}>
        {task.prompt}
      </div>
      {task.log.length > 0 ? (
        <ol class="fleet-log mono" data-testid="fleet-task-log">
          {task.log.slice(-LOG_LINES).map((line, index) => (
            <li key={`${line.time}-${index}`}>
              <span class="muted">{formatClock(line.time)}</span> {line.message}
            </li>
          ))}
        </ol>
      ) : null}
      {task.error ? (
        <div class="field-error" data-testid="fleet-task-failure">
          {task.error.type}: {task.error.message}
        </div>
      ) : null}
      {turnOver && task.output !== null ? (
        <pre class="fleet-output" data-testid="fleet-task-output">
          {task.output}
        </pre>
      ) : null}
    </>
  );
}

function TaskControls({
  task,
  act,
  worker,
}: {
  task: FleetTask;
  act: (call: () => Promise<unknown>) => Promise<void>;
  worker: string;
}) {
  const [next, setNext] = useState('');
  if (isFinalTask(task.state)) return null;
  const id = task.task_id;
  return (
    <div class="fleet-controls">
      {task.state === 'idle' ? (
        <form
          class="fleet-continue"
          onSubmit={(event) => {
            event.preventDefault();
            if (next.trim() === '') return;
            void act(() => fleetApi.continue(worker, id, next)).then(() => setNext(''));
          }}
        >
          <input
            class="input"
            value={next}
            placeholder="The session's next prompt"
            onInput={(event) => setNext(event.currentTarget.value)}
            data-testid="fleet-continue-prompt"
          />
          <button type="submit" class="btn btn-primary" disabled={next.trim() === ''} data-testid="fleet-continue">
            Continue
          </button>
          <button
            type="button"
            class="btn"
            onClick={() => void act(() => fleetApi.end(worker, id))}
            data-testid="fleet-end"
          >
            End session
          </button>
        </form>
      ) : null}
      <button
        type="button"
        class="btn btn-danger-outline"
        disabled={task.state === 'cancelling'}
        onClick={() => void act(() => fleetApi.cancel(worker, id))}
        data-testid="fleet-cancel"
      >
        {task.state === 'cancelling' ? 'Cancelling…' : 'Cancel'}
      </button>
    </div>
  );
}

// A running turn counts from its start; a finished one shows what the worker measured.
function elapsed(task: FleetTask, now: number): string {
  if ((task.state === 'working' || task.state === 'queued') && task.started_at)
    return formatDuration(now - Date.parse(task.started_at));
  return formatDuration(task.duration_seconds === null ? null : task.duration_seconds * 1000);
}
