import type { FleetRegistryView } from '../../api/types.ts';
import { REGISTRY_HEALTH_TONES } from '../../lib/fleet.ts';
import { Badge } from '../badge.tsx';

/**
 * The workers of the fleet's PostgreSQL registry (a server started with AGENCY_DATABASE_URL): host, executors,
 * labels, state, heartbeat health in words and colour, and current task (a click opens its timeline); the last read's
 * error while the database cannot be reached.
 */
export function RegistryTable({
  registry,
  now,
  onOpen,
}: {
  registry: FleetRegistryView;
  now: number;
  /** Opens a worker's current task's timeline. */
  onOpen: (taskId: string) => void;
}) {
  // The age as of the read, plus the time since: the stream sends a new read only when something changes.
  const since = registry.checked_at ? Math.max(0, (now - Date.parse(registry.checked_at)) / 1000) : 0;
  return (
    <section class="card" data-testid="fleet-registry">
      <header class="card-header">
        <div>
          <h2 class="card-title">Registry</h2>
          <div class="card-subtitle mono small">{registry.database}</div>
        </div>
      </header>
      {registry.error ? (
        <p class="small fleet-registry-error" data-testid="fleet-registry-error">
          {registry.error}
        </p>
      ) : null}
      <div class="table-wrap">
        <table class="table">
          <thead>
            <tr>
              <th>Name</th>
              <th>Host</th>
              <th>Executors</th>
              <th>Labels</th>
              <th>State</th>
              <th>Health</th>
              <th>Heartbeat</th>
              <th>Task</th>
            </tr>
          </thead>
          <tbody>
            {registry.workers.map((worker) => (
              <tr key={worker.name} data-testid="fleet-registry-worker" data-name={worker.name}>
                <td>{worker.name}</td>
                <td class="mono small">{worker.host}</td>
                <td>{worker.executors.join(', ')}</td>
                <td class="mono small">{worker.labels.join(', ') || '—'}</td>
                <td>{worker.state}</td>
                <td>
                  <Badge tone={REGISTRY_HEALTH_TONES[worker.health]}>{worker.health}</Badge>
                </td>
                <td class="small">{Math.round(worker.heartbeat_age_seconds + since)} s ago</td>
                <td class="mono small">
                  {worker.current_task ? (
                    <button
                      type="button"
                      class="btn btn-sm btn-ghost mono"
                      onClick={() => onOpen(worker.current_task!)}
                      data-testid="fleet-registry-task"
                    >
                      {worker.current_task}
                    </button>
                  ) : (
                    '—'
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}
