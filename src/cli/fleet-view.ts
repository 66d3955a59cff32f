import type { WorkerTask } from '../fleet/api/worker-schemas.ts';
import type { Component, Health } from '../fleet/discovery/component.ts';
import type { TaskProgress } from '../fleet/directors/cli/follow-task.ts';
import type { Dispatch } from '../fleet/directors/cli/cli-director.ts';
import { type Colour, type Output, paint } from './render.ts';

const SETTLED = new Set(['idle', 'completed', 'failed', 'cancelled']);
const SPINNER = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
const HEALTH_COLOUR: Record<Health, Colour> = { green: 'green', yellow: 'yellow', red: 'red' };

/** `95` → `1m35s`, `4000` → `1h06m`, `3.2` → `3.2 s`. */
export function formatDuration(seconds: number): string {
  if (seconds < 60) return `${seconds.toFixed(1)} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}m${String(Math.floor(seconds % 60)).padStart(2, '0')}s`;
  return `${Math.floor(minutes / 60)}h${String(minutes % 60).padStart(2, '0')}m`;
}

/**
 * The live view of a task on a worker, on `err`: on a TTY one line redrawn ten times a second (a spinner, the
 * elapsed time, the state, the worker, its latest lifecycle line); elsewhere a plain line for each new state or
 * lifecycle line.
 */
export function createTaskProgressView(err: Output, dispatch: Dispatch, now: () => number = Date.now) {
  const since = now();
  const worker = dispatch.name ? `${dispatch.name} (${dispatch.url})` : dispatch.url;
  let latest: TaskProgress | undefined;
  let frame = 0;
  let shown = false;
  let lastLine = '';
  const elapsed = () => (now() - since) / 1000;
  // The state, and while the task works, the worker's latest lifecycle line.
  const describe = (progress: TaskProgress | undefined) => {
    const state = progress?.missed ? `no answer (${progress.missed})` : (progress?.task?.state ?? 'sent');
    const working = progress?.task === undefined || !SETTLED.has(progress.task.state);
    return [state, ...(progress?.event && working ? [progress.event] : [])].join(' · ');
  };
  const draw = () => {
    if (!err.isTTY) return;
    // The worker by name only (its URL is on the line above), before the event, so a narrow terminal cuts the event.
    const [state, ...event] = describe(latest).split(' · ');
    const who = dispatch.name ?? dispatch.url;
    const text = [`${SPINNER[frame++ % SPINNER.length]} ${formatDuration(elapsed())}`, state, who, ...event].join(
      ' · ',
    );
    err.write(`\r\x1b[K${paint(err, 'bold', text.slice(0, (err.columns ?? 120) - 1))}`);
    shown = true;
  };
  const timer = err.isTTY ? setInterval(draw, 100) : undefined;
  timer?.unref();
  const how = { started: 'started', continued: 'continued', resumed: 'resumed (a new task of the session)' };
  err.write(
    `${paint(err, 'dim', `${dispatch.taskId} ${how[dispatch.how]} on ${worker}, session ${dispatch.sessionId}`)}\n`,
  );
  return {
    update(progress: TaskProgress) {
      latest = progress;
      if (err.isTTY) return draw();
      const line = describe(progress);
      if (line !== lastLine) err.write(`[${formatDuration(elapsed()).padStart(7)}] ${line}\n`);
      lastLine = line;
    },
    /** Clears the live line and writes how the task ended. */
    finish(task: WorkerTask) {
      if (timer) clearInterval(timer);
      if (shown) err.write('\r\x1b[K');
      err.write(`${summary(err, task, elapsed())}\n`);
    },
    close() {
      if (timer) clearInterval(timer);
      if (shown) err.write('\r\x1b[K');
    },
  };
}

function summary(err: Output, task: WorkerTask, seconds: number): string {
  const time = formatDuration(seconds);
  if (task.state === 'idle') {
    return `${paint(err, 'green', `✓ done in ${time}`)}; session ${task.session_id} is open: agency task --continue "…" or agency task --end`;
  }
  if (task.state === 'completed') return paint(err, 'green', `✓ completed in ${time}`);
  const why = task.error ? ` (${task.error.type}): ${task.error.message}` : '';
  if (task.state === 'cancelled') return paint(err, 'yellow', `■ cancelled after ${time}${why}`);
  return paint(err, 'red', `✗ ${task.state} after ${time}${why}`);
}

/** The fleet as a table: name, type, URL, state, health, uptime, current task; then what failed, per component. */
export function formatFleetTable(components: readonly Component[], out: Output): string {
  if (components.length === 0) return 'No components found.\n';
  const rows = components.map((component) => {
    const { status } = component;
    const task = status?.current_task;
    return [
      status?.name ?? '?',
      status?.type ?? '?',
      component.url,
      component.health === 'red' ? `unreachable (${status?.state ?? 'never seen'})` : (status?.state ?? 'unknown'),
      component.health,
      status ? formatDuration(status.uptime_seconds) : '—',
      task ? `${task.id} ${JSON.stringify(task.prompt_preview.slice(0, 40))}` : '—',
    ];
  });
  const header = ['NAME', 'TYPE', 'URL', 'STATE', 'HEALTH', 'UPTIME', 'TASK'];
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column]!.length)));
  const line = (cells: string[], colour?: (text: string, column: number) => string) =>
    cells
      .map((cell, column) => {
        const padded = column === cells.length - 1 ? cell : cell.padEnd(widths[column]!);
        return colour ? colour(padded, column) : padded;
      })
      .join('  ')
      .trimEnd();
  const lines = [
    line(header, (text) => paint(out, 'bold', text)),
    ...rows.map((row, index) =>
      line(row, (text, column) => (column === 4 ? paint(out, HEALTH_COLOUR[components[index]!.health], text) : text)),
    ),
  ];
  const problems = components.filter((component) => component.error !== undefined);
  if (problems.length > 0) {
    lines.push(
      '',
      ...problems.map((component) =>
        paint(
          out,
          HEALTH_COLOUR[component.health],
          `${component.url}: ${component.error} (${component.failures} failed poll${component.failures === 1 ? '' : 's'})`,
        ),
      ),
    );
  }
  return `${lines.join('\n')}\n`;
}
