// The local TaskDispatch against real `agency worker` processes running the scripted executor: placement with
// affinity, settle, continue and end, cancel, busy workers, a worker killed or answering without the task, and
// finding a placed task again after a restart.
import { randomUUID } from 'node:crypto';
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

  it('finds a placed task by the session recorded for it, and a continued turn by its turn count', async () => {
    const dispatch = dispatchOver(workers.map((worker) => worker.url));
    const session = randomUUID();
    expect(await dispatch.find!({ session_id: session, worker: null })).toBeUndefined();
    const task = await dispatch.dispatch({ prompt: 'write placed.txt', session_id: session, prefer: 'w2' });
    expect(task.session_id).toBe(session);
    expect(await dispatch.find!({ session_id: session, worker: null })).toEqual(task);
    // Already known to the director: not found again.
    const known = new Set([task.task_id]);
    expect(await dispatch.find!({ session_id: session, worker: null }, { recorded: known })).toBeUndefined();
    const continued = {
      session_id: session,
      worker: task.worker,
      continued: { task_id: task.task_id, turns_before: 1 },
    };
    await dispatch.settle(task);
    expect(await dispatch.find!(continued)).toBeUndefined();
    await dispatch.continue(task, 'write again.txt');
    expect(await dispatch.find!(continued)).toEqual(task);
    await dispatch.settle(task);
    await dispatch.end(task);
    // Ended, it is in the worker's history, where it is still found.
    expect(await dispatch.settle(task)).toMatchObject({ state: 'completed' });
    expect(await dispatch.find!({ session_id: session, worker: null })).toEqual(task);
  });

  it('says a named worker that does not answer may hold the task, rather than that none has it', async () => {
    const dispatch = dispatchOver(workers.map((worker) => worker.url));
    const gone = { name: 'w9', url: 'http://127.0.0.1:9' };
    const refused = await rejection(dispatch.find!({ session_id: randomUUID(), worker: gone }));
    expect(refused.retryable).toBe(true);
    expect(refused.message).toContain('may hold the task of session');
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
