import { useState } from 'preact/hooks';
import type { ComponentView } from '../../api/types.ts';
import { HEALTH_LABELS, HEALTH_TONES, whyNoTask } from '../../lib/fleet.ts';
import { formatDuration } from '../../lib/format.ts';
import { Badge } from '../badge.tsx';
import { FleetTaskForm } from './fleet-task-form.tsx';
import { FleetTaskMonitor } from './fleet-task-monitor.tsx';
import { WorkerHistory } from './worker-history.tsx';

/**
 * One component of the fleet: its type, name, state and health (in words as well as colour), uptime, executor and
 * current task; for a worker, the task form, the task followed, and its history.
 */
export function ComponentCard({ component, now }: { component: ComponentView; now: number }) {
  const [followed, setFollowed] = useState<string | undefined>(undefined);
  const [changes, setChanges] = useState(0);
  const { name, health, current_task: current } = component;
  const worker = component.taskable && name ? name : undefined;
  return (
    <section
      class={`card fleet-card fleet-card-${health}`}
      data-testid="fleet-card"
      data-name={name ?? component.url}
      data-health={health}
      data-state={component.state ?? 'unknown'}
    >
      <header class="card-header">
        <div>
          <h2 class="card-title">
            <span class="muted small fleet-type">{component.type ?? 'component'}</span> {name ?? component.url}
          </h2>
          <div class="card-subtitle mono small">{component.url}</div>
        </div>
        <div class="card-actions header-badges">
          <Badge tone={HEALTH_TONES[health]} title={component.error ?? undefined} testId="fleet-health">
            <span class="status-dot" aria-hidden="true" />
            {HEALTH_LABELS[health]}
          </Badge>
          <Badge tone={component.state === 'working' ? 'blue' : 'gray'} testId="fleet-state">
            {component.state ?? 'unknown'}
          </Badge>
        </div>
      </header>
      <div class="card-body">
        <Facts component={component} now={now} />
        {health !== 'green' && component.error ? (
          <p class="small field-error" data-testid="fleet-error">
            {health === 'red' ? 'Unreachable, last known state shown: ' : 'Missed a poll: '}
            {component.error}
          </p>
        ) : null}
        {current ? (
          <div class="fleet-current" data-testid="fleet-current-task">
            <span class="small muted">Current task</span>
            <span class="fleet-history-prompt" title={current.prompt_preview}>
              {current.prompt_preview}
            </span>
            {worker && followed !== current.id ? (
              <button type="button" class="btn btn-sm" onClick={() => setFollowed(current.id)}>
                Follow
              </button>
            ) : null}
          </div>
        ) : null}
        {worker ? (
          <>
            <FleetTaskForm
              worker={worker}
              model={component.model}
              disabledReason={whyNoTask(component)}
              onSubmitted={setFollowed}
            />
            {followed ? (
              <FleetTaskMonitor
                key={followed}
                worker={worker}
                taskId={followed}
                onClose={() => setFollowed(undefined)}
                onChanged={() => setChanges((count) => count + 1)}
              />
            ) : null}
            <WorkerHistory
              worker={worker}
              refreshKey={`${component.state}:${current?.id ?? ''}:${changes}`}
              onOpen={setFollowed}
            />
          </>
        ) : null}
      </div>
    </section>
  );
}

function Facts({ component, now }: { component: ComponentView; now: number }) {
  // The uptime is as of the last answer; a healthy component has kept running since.
  const since = component.health === 'green' && component.seen_at ? now - Date.parse(component.seen_at) : 0;
  const uptime = component.uptime_seconds === null ? null : component.uptime_seconds * 1000 + Math.max(0, since);
  return (
    <dl class="fleet-facts small">
      <div>
        <dt class="muted">Uptime</dt>
        <dd data-testid="fleet-uptime">{formatDuration(uptime)}</dd>
      </div>
      <div>
        <dt class="muted">Executor</dt>
        <dd data-testid="fleet-executor">{component.executor ?? '—'}</dd>
      </div>
      <div>
        <dt class="muted">Model</dt>
        <dd>{component.model ?? '—'}</dd>
      </div>
      <div>
        <dt class="muted">Found by</dt>
        <dd>{component.source === 'scan' ? 'port scan' : 'static list'}</dd>
      </div>
      <div>
        <dt class="muted">Version</dt>
        <dd>{component.version ?? '—'}</dd>
      </div>
    </dl>
  );
}
