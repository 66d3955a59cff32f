// The local TaskDispatch against real `agency worker` processes running the scripted executor: placement with
// affinity, settle, continue and end, cancel, busy workers, and a worker killed or answering without the task.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDiscovery } from '../../src/fleet/discovery/discovery.ts';
import { createLocalDispatch } from '../../src/fleet/directors/local-dispatch.ts';
import type { DispatchedTask, TaskDispatch } from '../../src/fleet/directors/task-dispatch.ts';
import { createWorkerClient } from '../../src/fleet/worker-client.ts';
import { rejection } from '../support/rejection.ts';
import { startWorkerProcess, waitForExecutor, workerRoot, type WorkerProcess } from '../support/worker-process.ts';

const CONFIG = 'port: 9000\nexecutor: claude\nmodel: sonnet\n';
let workers: WorkerProcess[] = [];

function dispatchOver(urls: string[], lostAfterMs = 30_000): TaskDispatch {
  const clientFor = (url: string) => createWorkerClient(url, { timeoutMs: 2000 });
  const discovery = createDiscovery({ urls, ports: null, clientFor });
  return createLocalDispatch({ candidates: () => discovery.refresh(), clientFor, lostAfterMs });
}

beforeAll(async () => {
  workers = await Promise.all(
    ['w1', 'w2'].map(async (name) => startWorkerProcess(name, await workerRoot(name, CONFIG))),
  );
}, 60_000);

afterAll(async () => {
  await Promise.all(workers.map((worker) => worker.kill('SIGKILL')));
});

describe('the local TaskDispatch', () => {
  it('hands a task to the preferred idle worker and settles it, then continues and ends the session', async () => {
    const dispatch = dispatchOver(workers.map((worker) => worker.url));
    const task = await dispatch.dispatch({ prompt: 'write a.txt', prefer: 'w2' });
    expect(task.worker).toEqual({ name: 'w2', url: workers[1]!.url });
    const first = await dispatch.settle(task);
    expect(first).toMatchObject({ state: 'idle', task: { output: 'files: a.txt; resume=false' } });
    await dispatch.continue(task, 'write b.txt');
    expect(await dispatch.settle(task)).toMatchObject({ state: 'idle', task: { turns: 2 } });
    await dispatch.end(task);
    expect(await dispatch.settle(task)).toMatchObject({ state: 'completed' });
  });

  it('passes over a busy worker, and says agent_busy when every worker is busy', async () => {
    const dispatch = dispatchOver(workers.map((worker) => worker.url));
    const first = await dispatch.dispatch({ prompt: 'hang', prefer: workers[0]!.url });
    expect(first.worker.name).toBe('w1');
    const second = await dispatch.dispatch({ prompt: 'hang', prefer: 'w1' });
    expect(second.worker.name).toBe('w2');
    const busy = await rejection(dispatch.dispatch({ prompt: 'hang' }));
    expect(busy.code).toBe('agent_busy');
    const waits: string[][] = [];
    const waited = await rejection(
      dispatch.dispatch({ prompt: 'hang', waitMs: 300 }, { onWait: ({ busy: who }) => waits.push(who) }),
    );
    expect(waited.message).toContain('after waiting');
    expect(waits.length).toBeGreaterThan(0);
    expect(waits[0]!.join(' ')).toContain('w1');
    await dispatch.cancel(first);
    await dispatch.cancel(second);
    expect(await dispatch.settle(first)).toMatchObject({ state: 'cancelled' });
    expect(await dispatch.settle(second)).toMatchObject({ state: 'cancelled' });
  });

  it('reports a failed task with its error type', async () => {
    const dispatch = dispatchOver([workers[0]!.url]);
    const task = await dispatch.dispatch({ prompt: 'fail rate_limit' });
    const outcome = await dispatch.settle(task);
    expect(outcome).toMatchObject({ state: 'failed', error: { type: 'rate_limit' } });
  });

  it('says no_worker when nothing answers', async () => {
    const dispatch = dispatchOver(['http://127.0.0.1:9']);
    expect((await rejection(dispatch.dispatch({ prompt: 'x' }))).code).toBe('no_worker');
  });

  it('reports lost when the worker answers without the task (it restarted)', async () => {
    const dispatch = dispatchOver([workers[0]!.url]);
    const ghost: DispatchedTask = {
      worker: { name: 'w1', url: workers[0]!.url },
      task_id: 'task-01jz0000000000000000000001',
      session_id: '6f1c2a8e-0000-4000-8000-000000000001',
    };
    expect(await dispatch.settle(ghost)).toMatchObject({
      state: 'lost',
      error: { type: 'worker_lost', message: expect.stringContaining('no longer has task') as unknown },
    });
  });

  it('reports lost when the worker is killed mid-task', async () => {
    const worker = await startWorkerProcess('w3', await workerRoot('w3', CONFIG));
    const dispatch = dispatchOver([worker.url], 1500);
    const task = await dispatch.dispatch({ prompt: 'hang' });
    await waitForExecutor(worker, task.task_id);
    await worker.kill('SIGKILL');
    expect(await dispatch.settle(task)).toMatchObject({
      state: 'lost',
      error: { type: 'worker_lost', message: expect.stringContaining('stopped answering') as unknown },
    });
  }, 30_000);
});
