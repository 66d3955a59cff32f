import { describe, expect, it } from 'vitest';
import type { WorkerTask } from '../fleet/api/worker-schemas.ts';
import { afterPoll, newComponent } from '../fleet/discovery/component.ts';
import type { Dispatch } from '../fleet/directors/cli/cli-director.ts';
import { createTaskProgressView, formatDuration, formatFleetTable } from './fleet-view.ts';
import type { Output } from './render.ts';

const dispatch: Dispatch = {
  url: 'http://127.0.0.1:9000',
  name: 'a',
  taskId: 'task-01m89tvdypg68nrk9zzp2259tf',
  sessionId: '7b549308-6b42-4a6b-b720-c8eab7e202e0',
  how: 'started',
};
const task = (state: WorkerTask['state'], error: WorkerTask['error'] = null): WorkerTask => ({
  task_id: dispatch.taskId,
  state,
  executor: 'claude',
  exit_code: null,
  started_at: null,
  completed_at: null,
  duration_seconds: null,
  output: null,
  error,
  session_id: dispatch.sessionId,
  token_usage: null,
  cost_usd: null,
  turns: 1,
});

function output(isTTY: boolean): Output & { text: string } {
  const out = { text: '', isTTY, columns: 60, write: (text: string) => void (out.text += text) };
  return out;
}

describe('the task progress view', () => {
  it('writes a plain line for each new state or lifecycle line when not on a terminal', () => {
    let now = 0;
    const err = output(false);
    const view = createTaskProgressView(err, dispatch, () => now);
    view.update({ task: task('queued'), event: undefined, missed: 0 });
    now = 300;
    view.update({ task: task('working'), event: 'tool: read_file', missed: 0 });
    view.update({ task: task('working'), event: 'tool: read_file', missed: 0 });
    now = 1200;
    view.update({ task: task('working'), event: 'tool: read_file', missed: 2 });
    view.update({ task: task('idle'), event: 'tool: read_file', missed: 0 });
    view.finish(task('idle'));
    expect(err.text).toBe(
      `${dispatch.taskId} started on a (http://127.0.0.1:9000), session ${dispatch.sessionId}\n` +
        '[  0.0 s] queued\n' +
        '[  0.3 s] working · tool: read_file\n' +
        '[  1.2 s] no answer (2) · tool: read_file\n' +
        '[  1.2 s] idle\n' +
        `✓ done in 1.2 s; session ${dispatch.sessionId} is open: agency task --continue "…" or agency task --end\n`,
    );
  });

  it('redraws one line on a terminal, cut to its width, and clears it at the end', () => {
    const err = output(true);
    const view = createTaskProgressView(err, dispatch, () => 2500);
    view.update({ task: task('working'), event: 'a lifecycle line long enough to be cut at the edge', missed: 0 });
    view.finish(task('failed', { type: 'executor_error', message: 'exit 1' }));
    const [header, live, end] = err.text.split(/\n|\r\x1b\[K/).filter(Boolean);
    expect(header).toContain('started on a');
    expect(live).toBe('⠋ 0.0 s · working · a · a lifecycle line long enough to be ');
    expect(live).toHaveLength(59);
    expect(end).toBe('✗ failed after 0.0 s (executor_error): exit 1');
    expect(err.text.endsWith('\r\x1b[K✗ failed after 0.0 s (executor_error): exit 1\n')).toBe(true);
  });
});

describe('the fleet table', () => {
  it('aligns the columns and names each failing poll below', () => {
    const idle = afterPoll(
      newComponent('http://127.0.0.1:9000', 'scan', 0),
      {
        ok: true,
        status: {
          type: 'agent',
          interfaces: ['statusable', 'taskable'],
          name: 'a',
          version: '1',
          state: 'idle',
          uptime_seconds: 95,
          current_task: null,
          config: {},
          log: [],
        },
      },
      0,
    );
    const gone = [1, 2, 3].reduce(
      (component) => afterPoll(component, { ok: false, error: 'connect ECONNREFUSED' }, 0),
      idle,
    );
    const text = formatFleetTable([idle, { ...gone, url: 'http://127.0.0.1:9001' }], output(false));
    expect(text).toBe(
      [
        'NAME  TYPE   URL                    STATE               HEALTH  UPTIME  TASK',
        'a     agent  http://127.0.0.1:9000  idle                green   1m35s   —',
        'a     agent  http://127.0.0.1:9001  unreachable (idle)  red     1m35s   —',
        '',
        'http://127.0.0.1:9001: connect ECONNREFUSED (3 failed polls)',
        '',
      ].join('\n'),
    );
    expect(formatFleetTable([], output(false))).toBe('No components found.\n');
    expect([formatDuration(3.24), formatDuration(4000)]).toEqual(['3.2 s', '1h06m']);
  });
});
