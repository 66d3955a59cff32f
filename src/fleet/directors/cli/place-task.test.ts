import { afterEach, describe, expect, it } from 'vitest';
import { createFakeTimers } from '../../../../test/support/fake-timers.ts';
import { startFakeComponent } from '../../../../test/support/fake-component.ts';
import { type LiveWorker, startLiveWorker } from '../../../../test/support/live-worker.ts';
import { AgencyError } from '../../../core/errors.ts';
import type { WorkerStatus } from '../../api/worker-schemas.ts';
import { afterPoll, type Component, newComponent } from '../../discovery/component.ts';
import { createDiscovery } from '../../discovery/discovery.ts';
import { createWorkerClient, type WorkerClient } from '../../worker-client.ts';
import { placeTask } from './place-task.ts';
import { rejection } from '../../../../test/support/rejection.ts';

const workers: LiveWorker[] = [];
afterEach(async () => {
  await Promise.all(workers.splice(0).map((worker) => worker.close()));
});

const clientFor = (url: string) => createWorkerClient(url);

describe('placing a task', () => {
  it('two directors racing for the same idle worker both get one; a third gets agent_busy', async () => {
    workers.push(...(await Promise.all([startLiveWorker({ name: 'a' }), startLiveWorker({ name: 'b' })])));
    // Every director read the fleet before any sent its task: each sees both workers idle, and tries `a` first.
    const snapshot = await createDiscovery({ ports: null, urls: workers.map((worker) => worker.url) }).refresh();
    expect(snapshot.map((component) => component.status?.state)).toEqual(['idle', 'idle']);
    const place = (prompt: string) =>
      placeTask({
        candidates: async () => snapshot,
        clientFor,
        send: (client) => client.submit({ prompt }),
      });
    const [first, second, third] = await Promise.allSettled([
      place('sleep 20000'),
      place('sleep 20000'),
      place('sleep 20000'),
    ]);
    const placed = [first, second].map((result) =>
      result.status === 'fulfilled' ? result.value.component.status?.name : result.reason,
    );
    expect(placed.sort()).toEqual(['a', 'b']);
    expect(third.status).toBe('rejected');
    const busy = (third as PromiseRejectedResult).reason as AgencyError;
    expect([busy.code, busy.retryable]).toEqual(['agent_busy', true]);
    expect(busy.message).toMatch(
      /^Every worker is busy \([ab] \(http:\S+\): busy \(task-\w+\); [ab] \(http:\S+\): busy \(task-\w+\)\)\. --wait SECONDS waits for one to be free\.$/,
    );
    const held = await Promise.all(workers.map((worker) => createWorkerClient(worker.url).tasks()));
    expect(held.map((tasks) => tasks.length)).toEqual([1, 1]);
  });

  it('does not ask a worker it knows to be busy, and says who is busy', async () => {
    workers.push(await startLiveWorker({ name: 'a' }));
    await createWorkerClient(workers[0]!.url).submit({ prompt: 'sleep 20000' });
    const snapshot = await createDiscovery({ ports: null, urls: [workers[0]!.url] }).refresh();
    let asked = 0;
    const busy = await rejection(
      placeTask({
        candidates: async () => snapshot,
        clientFor,
        send: async () => {
          asked++;
          return undefined;
        },
      }),
    );
    expect(asked).toBe(0);
    expect(busy.message).toMatch(/^Every worker is busy \(a \(http:.*\): working \(task-\w+\)\)/);
  });

  it('with a wait, asks again with a jittered backoff until a worker is free', async () => {
    const timers = createFakeTimers();
    const rounds = [[busyWorker('a')], [busyWorker('a')], [idleWorker('a')]];
    const waits: number[] = [];
    const placing = placeTask({
      candidates: async () => rounds.shift() ?? [],
      clientFor: () => ({ submit: async () => ({ task_id: 'task-1' }) }) as unknown as WorkerClient,
      send: (client) => client.submit({ prompt: 'hi' }),
      waitMs: 10_000,
      timers,
      random: () => 0.5,
      onWait: ({ delayMs }) => waits.push(delayMs),
    });
    await timers.advance(750);
    const { component, answer } = await placing;
    expect([component.status?.name, answer]).toEqual(['a', { task_id: 'task-1' }]);
    expect(waits).toEqual([250, 500]);
  });

  it('with a wait that runs out, fails with agent_busy; with no worker at all, with no_worker', async () => {
    const timers = createFakeTimers();
    const placing = rejection(
      placeTask({
        candidates: async () => [busyWorker('a')],
        clientFor,
        send: async () => undefined,
        waitMs: 3_000,
        timers,
      }),
    );
    await timers.advance(3_000);
    const busy = await placing;
    expect([busy.code, busy.message]).toEqual([
      'agent_busy',
      'Every worker is busy after waiting 3 s (a (http://127.0.0.1:9000): working (task-1)).',
    ]);
    const none = await rejection(placeTask({ candidates: async () => [], clientFor, send: async () => undefined }));
    expect([none.code, none.retryable]).toEqual(['no_worker', false]);
    expect(none.message).toContain('none was found');
  });

  it('stops at an error that is not about being busy, without trying the next worker', async () => {
    workers.push(await startLiveWorker({ name: 'b' }));
    const broken = await startFakeComponent({ name: 'a', faults: { '/task': 'malformed' } });
    try {
      // Either one first: a refusal of the task, or a broken answer, is not passed on to the next worker.
      const snapshot = await createDiscovery({ ports: null, urls: [broken.url, workers[0]!.url] }).refresh();
      const live = snapshot.find((component) => component.url === workers[0]!.url)!;
      const faulty = snapshot.find((component) => component.url === broken.url)!;
      const place = (order: Component[], prompt: string) =>
        rejection(placeTask({ candidates: async () => order, clientFor, send: (client) => client.submit({ prompt }) }));
      const invalid = await place([live, faulty], '');
      expect([invalid.code, invalid.details?.url]).toEqual(['invalid_argument', live.url]);
      const malformed = await place([faulty, live], 'x');
      expect([malformed.code, malformed.details?.url]).toEqual(['response_invalid', broken.url]);
      expect(await createWorkerClient(workers[0]!.url).tasks()).toEqual([]);
    } finally {
      await broken.close();
    }
  });
});

function worker(name: string, state: WorkerStatus['state']): Component {
  const status: WorkerStatus = {
    type: 'agent',
    interfaces: ['statusable', 'taskable'],
    name,
    version: '1',
    state,
    uptime_seconds: 1,
    current_task:
      state === 'working' ? { id: 'task-1', started_at: new Date(0).toISOString(), prompt_preview: '' } : null,
    config: {},
    log: [],
  };
  return afterPoll(newComponent('http://127.0.0.1:9000', 'scan', 0), { ok: true, status }, 0);
}
const busyWorker = (name: string) => worker(name, 'working');
const idleWorker = (name: string) => worker(name, 'idle');
