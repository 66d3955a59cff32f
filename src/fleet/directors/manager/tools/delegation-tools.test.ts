import { randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type FakeComponent, startFakeComponent } from '../../../../../test/support/fake-component.ts';
import { type LiveWorker, startLiveWorker } from '../../../../../test/support/live-worker.ts';
import { rejection } from '../../../../../test/support/rejection.ts';
import { createDiscovery } from '../../../discovery/discovery.ts';
import { createWorkerClient } from '../../../worker-client.ts';
import { createLocalDispatch } from '../../local-dispatch.ts';
import { createAwaitTaskTool } from './await-task.ts';
import { createDelegateTaskTool } from './delegate-task.ts';
import { createDelegationLedger, type Delegation, type DelegationContext } from './index.ts';
import { createInspectWorkdirTool } from './inspect-workdir.ts';
import { createListWorkersTool } from './list-workers.ts';

// Real workers (the scripted executor) and, where a test needs one that holds a task forever or is no agent, fakes.
const workers: LiveWorker[] = [];
const fakes: FakeComponent[] = [];
let dir: string;
let context: DelegationContext;
const clientFor = (url: string) => createWorkerClient(url);
const call = (toolCallId = `call_${randomUUID()}`) => ({ toolCallId, signal: new AbortController().signal });

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agency-manager-tools-'));
  await mkdir(join(dir, 'run', 'progress'), { recursive: true });
  await mkdir(join(dir, 'work', 'app'), { recursive: true });
  workers.push(await startLiveWorker({ name: 'a' }), await startLiveWorker({ name: 'b' }));
  const urls = () => [...workers, ...fakes].map((component) => component.url);
  const discover = () => createDiscovery({ ports: null, urls: urls() }).refresh();
  context = {
    ledger: createDelegationLedger(join(dir, 'run')),
    discover,
    dispatch: createLocalDispatch({ candidates: discover, clientFor, lostAfterMs: 500 }),
    clientFor,
    readablePaths: [join(dir, 'work')],
    waitForWorkerMs: 0,
    now: Date.now,
  };
});

afterEach(async () => {
  for (const fake of fakes.splice(0)) {
    expect(fake.contractBreaks).toEqual([]);
    await fake.close();
  }
  for (const worker of workers.splice(0)) await worker.close();
  await rm(dir, { recursive: true, force: true });
});

/** A tool's answer as a promise, for `rejection`. */
const settle = <T>(answer: T | Promise<T>): Promise<T> => Promise.resolve(answer);
/** The ids of every task the real workers took: those they hold and those in their history. */
const allTasks = async () => {
  const ids = new Set<string>();
  for (const worker of workers) {
    const client = clientFor(worker.url);
    for (const task of await client.tasks()) ids.add(task.task_id);
    for (const task of (await client.history()).items) ids.add(task.task_id);
  }
  return [...ids];
};

describe('delegate_task', () => {
  it('sends a tool call once: called again for the same call (a resumed run), it answers the same task', async () => {
    const delegate = createDelegateTaskTool(context);
    const first = await delegate.execute({ prompt: 'part one', worker: 'a' }, call('call_1'));
    const again = await delegate.execute({ prompt: 'part one', worker: 'a' }, call('call_1'));
    expect(again).toEqual(first);
    expect(first).toMatchObject({ worker: { name: 'a' }, how: 'started' });
    expect(await allTasks()).toEqual([first.task_id]);
    expect(delegate).toMatchObject({ effects: 'exec', idempotent: true });
  });

  it('finds the task a crash left announced but unrecorded on its worker, rather than sending it again', async () => {
    const key = context.ledger.keyOf('call_cut');
    const sessionId = randomUUID();
    await context.ledger.put(announced(key, sessionId, { name: 'a', url: workers[0]!.url }));
    // The worker took it; the manager died before it wrote down the answer.
    const taken = await clientFor(workers[0]!.url).submit({ prompt: 'part one', session_id: sessionId });
    const answer = await createDelegateTaskTool(context).execute({ prompt: 'part one', worker: 'a' }, call('call_cut'));
    expect(answer.task_id).toBe(taken.task_id);
    expect(await allTasks()).toEqual([taken.task_id]);
    expect((await context.ledger.get(key))?.state).toBe('sent');
  });

  it('sends an announced delegation that no worker has, once', async () => {
    const key = context.ledger.keyOf('call_unsent');
    await context.ledger.put(announced(key, randomUUID(), null));
    const answer = await createDelegateTaskTool(context).execute({ prompt: 'part two' }, call('call_unsent'));
    expect(await allTasks()).toEqual([answer.task_id]);
  });

  it('refuses a worker discovery did not find, such as a URL in a worker’s output, and sends nothing', async () => {
    const delegate = createDelegateTaskTool(context);
    for (const worker of ['http://203.0.113.9:9000', 'http://127.0.0.1:1', 'evil']) {
      const error = await rejection(settle(delegate.execute({ prompt: 'exfiltrate', worker }, call())));
      expect([error.code, error.message]).toEqual(['no_worker', expect.stringContaining('list_workers') as unknown]);
    }
    expect(await allTasks()).toEqual([]);
    expect(await context.ledger.all()).toEqual([]);
  });

  it('refuses a workdir outside the readable paths, by .. or by a link', async () => {
    await symlink('/etc', join(dir, 'work', 'out'));
    const delegate = createDelegateTaskTool(context);
    for (const workdir of ['/etc', join(dir, 'work', '..', 'run'), join(dir, 'work', 'out'), 'relative/dir']) {
      const error = await rejection(settle(delegate.execute({ prompt: 'x', workdir }, call())));
      expect(error.code).toMatch(/^path_/);
    }
    expect(await allTasks()).toEqual([]);
  });

  it('carries on only a session this manager delegated', async () => {
    const error = await rejection(
      settle(createDelegateTaskTool(context).execute({ prompt: 'more', session: randomUUID() }, call())),
    );
    expect([error.code, error.message]).toEqual([
      'invalid_argument',
      expect.stringContaining('not one this manager') as unknown,
    ]);
  });
});

describe('await_task, list_workers and the dispatch', () => {
  it('awaits a delegated task to its end, and refuses a task id it did not delegate', async () => {
    const delegated = await createDelegateTaskTool(context).execute(
      { prompt: 'fail executor_error', worker: 'b' },
      call(),
    );
    const awaited = await createAwaitTaskTool(context).execute({ task_id: delegated.task_id }, call());
    expect(awaited).toMatchObject({ state: 'failed', error: { type: 'executor_error' }, worker: 'b' });
    const stranger = await rejection(
      settle(createAwaitTaskTool(context).execute({ task_id: 'task-01m89y931aaebgvtn95hrny1a6' }, call())),
    );
    expect(stranger.code).toBe('task_not_found');
  });

  it('answers lost (worker_lost) when the worker dies under the task, and working when the wait runs out', async () => {
    const holder = await startFakeComponent({ name: 'holder' });
    fakes.push(holder);
    const delegated = await createDelegateTaskTool(context).execute({ prompt: 'hold', worker: 'holder' }, call());
    const short = await createAwaitTaskTool(context).execute(
      { task_id: delegated.task_id, timeout_seconds: 1 },
      call(),
    );
    expect(short).toMatchObject({ state: 'working', timed_out: true });
    await fakes.shift()!.close();
    const lost = await createAwaitTaskTool(context).execute({ task_id: delegated.task_id }, call());
    expect(lost).toMatchObject({ state: 'lost', error: { type: 'worker_lost' } });
  });

  it('lists only taskable agents, never a director, and places a task on the preferred worker first', async () => {
    fakes.push(await startFakeComponent({ name: 'boss', type: 'director' }));
    const listed = await createListWorkersTool(context).execute({}, call());
    expect(listed.map((worker) => [worker.name, worker.state, worker.health]).sort()).toEqual([
      ['a', 'idle', 'green'],
      ['b', 'idle', 'green'],
    ]);
    const placed = await context.dispatch.dispatch({ prompt: 'here', prefer: 'b' });
    expect(placed.worker.name).toBe('b');
  });
});

describe('inspect_workdir', () => {
  const work = () => join(dir, 'work', 'app');
  beforeEach(async () => {
    await writeFile(join(work(), 'parser.ts'), 'export const parse = 1;\n');
    await context.ledger.put({ ...announced(context.ledger.keyOf('c'), randomUUID(), null), ...sent(work()) });
  });

  it('lists and reads a delegated workdir', async () => {
    const inspect = createInspectWorkdirTool(context);
    expect(JSON.stringify(await inspect.execute({ workdir: work() }, call()))).toContain('parser.ts');
    expect(JSON.stringify(await inspect.execute({ workdir: work(), path: 'parser.ts' }, call()))).toContain(
      'export const parse',
    );
    expect(inspect.effects).toBe('read');
  });

  it('refuses .., absolute paths, links out, huge files and workdirs it did not delegate', async () => {
    await writeFile(join(dir, 'work', 'secret.txt'), 'secret');
    await symlink(join(dir, 'work', 'secret.txt'), join(work(), 'link.txt'));
    await symlink('/etc', join(work(), 'etc'));
    await writeFile(join(work(), 'huge.log'), Buffer.alloc(2 * 1024 * 1024, 'a'));
    const inspect = createInspectWorkdirTool(context);
    for (const path of ['../secret.txt', '/etc/passwd', 'link.txt', 'etc/passwd']) {
      const error = await rejection(settle(inspect.execute({ workdir: work(), path }, call())));
      expect(error.code, path).toMatch(/^path_/);
    }
    const huge = await rejection(settle(inspect.execute({ workdir: work(), path: 'huge.log' }, call())));
    expect([huge.code, huge.message]).toEqual(['invalid_argument', expect.stringMatching(/1048576|1 MiB|larger/)]);
    for (const workdir of [join(dir, 'work'), '/etc', join(work(), '..', '..', 'run')]) {
      const error = await rejection(settle(inspect.execute({ workdir }, call())));
      expect(error.code, workdir).toMatch(/^path_/);
    }
  });
});

function announced(key: string, sessionId: string, worker: Delegation['worker']): Delegation {
  return {
    version: 1,
    key,
    state: 'sending',
    session_id: sessionId,
    how: 'started',
    worker,
    task_id: null,
    turns_before: null,
    workdir: null,
    prompt_sha256: '0'.repeat(64),
    at: new Date().toISOString(),
  };
}

function sent(workdir: string): Partial<Delegation> {
  return {
    state: 'sent',
    worker: { name: 'a', url: 'http://127.0.0.1:9' },
    task_id: 'task-01m89y931aaebgvtn95hrny1a6',
    workdir,
  };
}
