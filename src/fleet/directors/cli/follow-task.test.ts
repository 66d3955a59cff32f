import { describe, expect, it } from 'vitest';
import { createFakeTimers } from '../../../../test/support/fake-timers.ts';
import { AgencyError } from '../../../core/errors.ts';
import type { WorkerStatus, WorkerTask } from '../../api/worker-schemas.ts';
import type { WorkerClient } from '../../worker-client.ts';
import { followTask, type TaskProgress } from './follow-task.ts';

const task = (state: WorkerTask['state'], output: string | null = null): WorkerTask => ({
  task_id: 'task-01m89rf417jze0yfzxypaay4fs',
  state,
  executor: 'claude',
  exit_code: state === 'idle' ? 0 : null,
  started_at: null,
  completed_at: null,
  duration_seconds: null,
  output,
  error: null,
  session_id: '5f0c7a43-3b1e-4f43-9d41-1f2a3b4c5d6e',
  token_usage: null,
  cost_usd: null,
  turns: 1,
});

// A worker whose task answers are scripted one poll at a time; its status log has one line per working poll.
function scriptedWorker(answers: Array<WorkerTask | AgencyError>, timers: { now(): number }) {
  const polls: number[] = [];
  const client = {
    url: 'http://127.0.0.1:9000',
    async task() {
      polls.push(timers.now());
      const answer = answers.length > 1 ? answers.shift()! : answers[0]!;
      if (answer instanceof Error) throw answer;
      return answer;
    },
    async status() {
      return {
        log: [
          { time: new Date(timers.now()).toISOString(), level: 'info', message: `tool: read_file @${timers.now()}` },
        ],
      } as WorkerStatus;
    },
  } as unknown as WorkerClient;
  return { client, polls };
}

const down = () =>
  new AgencyError('network_failed', 'worker http://127.0.0.1:9000: GET /task/x: no answer: ECONNREFUSED', {
    details: { url: 'http://127.0.0.1:9000' },
  });

describe('following a task', () => {
  it('polls quickly at first, then once a second, until the turn is over; it reports the latest lifecycle line', async () => {
    const timers = createFakeTimers(0);
    const answers = [task('queued'), ...Array.from({ length: 6 }, () => task('working')), task('idle', 'done')];
    const { client, polls } = scriptedWorker(answers, timers);
    const seen: TaskProgress[] = [];
    const following = followTask({ client, taskId: 'task-x', timers, onProgress: (progress) => seen.push(progress) });
    await timers.advance(10_000);
    const final = await following;
    expect([final.state, final.output]).toEqual(['idle', 'done']);
    expect(polls).toEqual([0, 100, 250, 475, 813, 1320, 2081, 3081]);
    expect(seen.map((progress) => progress.task?.state)).toEqual(['queued', ...Array(6).fill('working'), 'idle']);
    expect(seen.map((progress) => progress.event)).toEqual([
      'tool: read_file @0',
      'tool: read_file @0',
      'tool: read_file @0',
      'tool: read_file @0',
      'tool: read_file @0',
      'tool: read_file @1320',
      'tool: read_file @1320',
      'tool: read_file @1320',
    ]);
  });

  it('rides out a worker that misses a few polls, and gives up on one lost for 10 in a row', async () => {
    const timers = createFakeTimers(0);
    const flaky = scriptedWorker([task('working'), down(), down(), task('idle', 'back')], timers);
    const seen: number[] = [];
    const following = followTask({
      client: flaky.client,
      taskId: 'task-x',
      timers,
      onProgress: ({ missed }) => seen.push(missed),
    });
    await timers.advance(5_000);
    expect((await following).output).toBe('back');
    expect(seen).toEqual([0, 1, 2, 0]);

    const gone = scriptedWorker([task('working'), down()], timers);
    const lost = followTask({ client: gone.client, taskId: 'task-x', timers }).catch((error: unknown) => error);
    await timers.advance(20_000);
    const error = (await lost) as AgencyError;
    expect(error.code).toBe('network_failed');
    expect(error.message).toBe(
      'Lost the worker while following task-x: worker http://127.0.0.1:9000: GET /task/x: no answer: ECONNREFUSED. ' +
        'The task may still run there; see `agency fleet`.',
    );
    expect(gone.polls).toHaveLength(11);
  });

  it('gives up on a worker silent for 30 s, however few polls that took', async () => {
    const timers = createFakeTimers(0);
    // Each poll waits 10 s for an answer that does not come, as a hung worker makes it.
    let polls = 0;
    const slow = {
      url: 'http://127.0.0.1:9000',
      task: async () => {
        polls++;
        await new Promise((resolve) => timers.setTimeout(() => resolve(undefined), 10_000));
        throw down();
      },
    } as unknown as WorkerClient;
    const lost = followTask({ client: slow, taskId: 'task-x', timers }).catch((error: unknown) => error);
    await timers.advance(60_000);
    expect(((await lost) as AgencyError).code).toBe('network_failed');
    expect(polls).toBe(4);
  });

  it('stops at once on an answer outside the API', async () => {
    const timers = createFakeTimers(0);
    const bad = new AgencyError(
      'response_invalid',
      'worker http://127.0.0.1:9000: GET /task/x: the answer is not the worker API: malformed JSON',
    );
    const { client, polls } = scriptedWorker([task('working'), bad], timers);
    const following = followTask({ client, taskId: 'task-x', timers }).catch((error: unknown) => error);
    await timers.advance(1_000);
    expect(await following).toBe(bad);
    expect(polls).toHaveLength(2);
  });
});
