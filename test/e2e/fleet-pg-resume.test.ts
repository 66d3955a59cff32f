// A lost builtin task resumes from its journal when its session is on shared storage: a real PostgreSQL, real
// `agency worker` processes in queue mode running the real governed runner (`agency run`, then `agency resume`)
// against a local model server, each worker with its own data root and all of them naming one shared sessions dir.
import { randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DispatchedTask } from '../../src/fleet/directors/task-dispatch.ts';
import {
  createQueueDispatch,
  type FleetDatabase,
  openFleetDatabase,
  type QueueDispatch,
  readTask,
  taskHistory,
  taskQueueName,
} from '../../src/fleet/queue/index.ts';
import { createBwrapSandbox } from '../../src/sandbox/bwrap-sandbox.ts';
import { checkSandbox } from '../../src/sandbox/check-sandbox.ts';
import { readJournal } from '../../src/task/journal/read-journal.ts';
import { cli } from '../support/cli.ts';
import { type ChatMessage, startOpenAICompatibleServer, textOf } from '../support/openai-compatible-server.ts';
import { alive, type FleetWorker, waitFor, workerLog } from '../support/pg-fleet.ts';
import { runProblems } from '../support/pg-fleet-checks.ts';
import { startPostgres, type TempPostgres } from '../support/postgres.ts';
import { startWorkerProcess, workerRoot } from '../support/worker-process.ts';

const status = await checkSandbox(createBwrapSandbox());
const skip = status.ok ? '' : status.error.message;

// The model: reads the brief in Gather, plans one read, reads in Act, then answers; Verify passes. Every call is
// counted by the task's mark (`[mark:kill]`…) and phase, and the first Act call of a marked task can be held.
const calls = new Map<string, string[]>();
const held = new Map<string, { reached: boolean; release: () => void; released: Promise<void> }>();
const markOf = (messages: ChatMessage[]) => /\[mark:(\w+)\]/.exec(messages.map(textOf).join('\n'))?.[1] ?? 'none';
const count = (mark: string, phase: string) => (calls.get(mark) ?? []).filter((each) => each === phase).length;
const PLAN = {
  goal: 'Count the words',
  steps: [{ id: 's1', title: 'Read the brief', tools: ['fs_read'] }],
  allowed_tools: ['fs_read'],
  acceptance: [{ id: 'a1', criterion: 'the words are counted' }],
};
let answered = 0;
const answers = (phase: string, turn: number, messages: ChatMessage[]) => {
  const mark = markOf(messages);
  calls.set(mark, [...(calls.get(mark) ?? []), phase]);
  if (phase === 'gather')
    return turn === 0 ? [{ name: 'fs_read', arguments: { path: 'task/brief.md' } }] : 'The brief asks for a count.';
  if (phase === 'plan') return JSON.stringify(PLAN);
  if (phase === 'act')
    return turn === 0 ? [{ name: 'fs_read', arguments: { path: 'task/brief.md' } }] : `Counted (answer ${++answered})`;
  if (phase === 'verify') return JSON.stringify({ criteria: [{ id: 'a1', passed: true, evidence: 'counted' }] });
  return 'unknown phase';
};
const hold = (phase: string, turn: number, messages: ChatMessage[]) => {
  const gate = held.get(markOf(messages));
  if (phase !== 'act' || turn !== 0 || !gate || gate.reached) return undefined;
  gate.reached = true;
  return gate.released;
};
function holdFirstAct(mark: string) {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const gate = { reached: false, release, released };
  held.set(mark, gate);
  return gate;
}

let pg: TempPostgres;
let db: FleetDatabase;
let dispatch: QueueDispatch;
let model: Awaited<ReturnType<typeof startOpenAICompatibleServer>>;
let shared: string;
const workers: FleetWorker[] = [];
const roots: string[] = [];

// Worker `name` with a data root of its own (or its old one, `given`), naming the shared sessions dir: w1 by its
// config (`fleet.shared_sessions`), w2 by AGENCY_FLEET_SHARED_SESSIONS.
async function startWorker(name: string, given?: string) {
  const byEnv = name === 'w2';
  const config = [
    'port: 9000',
    'executor: builtin',
    `model: openai-compatible:${model.url}#local-model`,
    ...(byEnv ? [] : ['fleet:', `  shared_sessions: ${shared}`]),
  ].join('\n');
  const root = given ?? (await workerRoot(name, `${config}\n`));
  if (!given) roots.push(root);
  const env = {
    AGENCY_DATABASE_URL: pg.url,
    AGENCY_FLEET_HEARTBEAT_SECONDS: '1',
    ...(byEnv ? { AGENCY_FLEET_SHARED_SESSIONS: shared } : {}),
  };
  const worker = Object.assign(await startWorkerProcess(name, root, { env, scripted: false }), { name, root });
  workers.push(worker);
  await waitFor(`worker ${name} registered`, 30_000, async () => {
    const { rows } = await db.pool.query("SELECT 1 FROM agency.workers WHERE url = $1 AND state <> 'stopped'", [
      worker.url,
    ]);
    return rows.length === 1;
  });
  return worker;
}

const live = (name: string) => workers.findLast((worker) => worker.name === name && alive(worker))!;
const sessionDir = (task: DispatchedTask) => join(shared, task.session_id);

// Dispatches a marked task, approves its plan (as an operator would, with `agency approve`) and waits until its first
// Act call is held: Gather and Plan are committed in its journal by then.
async function startHeldTask(mark: string): Promise<{ task: DispatchedTask; gate: ReturnType<typeof holdFirstAct> }> {
  const gate = holdFirstAct(mark);
  const task = await dispatch.dispatch({ prompt: `Count the words of this brief. [mark:${mark}]` });
  await approvePlan(join(sessionDir(task), 'turn-1'));
  await waitFor('the first Act call held', 60_000, async () => gate.reached);
  return { task, gate };
}

// Approves the pending plan of the run in `turnRoot`, as an operator would, with `agency approve`.
async function approvePlan(turnRoot: string): Promise<void> {
  const requests = join(turnRoot, 'progress', 'approvals', 'requests');
  let request = '';
  await waitFor(`the plan approval request in ${turnRoot}`, 60_000, async () => {
    request = (await readdir(requests))[0]?.replace(/\.json$/, '') ?? '';
    return request !== '';
  });
  const approved = await cli(['approve', turnRoot, request, '--by', 'operator']);
  expect(approved.code, approved.stderr).toBe(0);
}

// The governed run a killed worker leaves behind is killed too: a lost host loses both.
async function killRun(turnRoot: string): Promise<void> {
  const lock = JSON.parse(await readFile(join(turnRoot, 'progress', '.lock'), 'utf8')) as { pid: number };
  process.kill(lock.pid, 'SIGKILL');
  await waitFor('the governed run gone', 10_000, async () => {
    try {
      process.kill(lock.pid, 0);
      return false;
    } catch {
      return true;
    }
  });
}

const frameTypes = async (root: string) =>
  (await readJournal(join(root, 'progress', 'events.ndjson'))).frames.map((frame) => frame.type);

beforeAll(async () => {
  if (skip) return;
  pg = await startPostgres();
  db = openFleetDatabase(pg.url, { onError: () => undefined });
  await db.migrate();
  dispatch = createQueueDispatch({ db, executor: 'builtin', rerunOnLoss: false, pollMs: 250, takeGraceMs: 120_000 });
  model = await startOpenAICompatibleServer(answers, { hold });
  shared = await mkdtemp(join(tmpdir(), 'agency-shared-sessions-'));
  await Promise.all([startWorker('w1'), startWorker('w2')]);
}, 180_000);

afterAll(async () => {
  for (const gate of held.values()) gate.release();
  await Promise.all(workers.filter(alive).map((worker) => worker.kill('SIGKILL')));
  await dispatch?.close().catch(() => undefined);
  await db?.close().catch(() => undefined);
  await pg?.stop();
  model?.server.closeAllConnections();
  model?.server.close();
  await Promise.all([...roots, shared].filter(Boolean).map((dir) => rm(dir, { recursive: true, force: true })));
}, 60_000);

describe.skipIf(skip !== '')(`a lost builtin task on shared sessions${skip ? ` (skipped: ${skip})` : ''}`, () => {
  it('resumes on another worker from its journal after its worker is killed, redoing no committed step', async () => {
    const { task, gate } = await startHeldTask('kill');
    const holder = (await readTask(db.pool, task.task_id))!.worker!;
    const lostRoot = join(sessionDir(task), 'turn-1');
    await live(holder).kill('SIGKILL');
    await killRun(lostRoot);
    // What the lost run committed, read once it is dead (frames are written behind its model calls).
    const before = await frameTypes(lostRoot);
    gate.release();
    const outcome = await dispatch.settle(task);
    // The killed worker comes back (with its data root), so the fleet has two workers again whatever follows.
    await startWorker(holder, workers.find((worker) => worker.name === holder)!.root);
    expect(outcome).toMatchObject({ state: 'idle', task: { output: expect.stringMatching(/^Counted/) as unknown } });
    const row = (await readTask(db.pool, task.task_id))!;
    expect(row).toMatchObject({ state: 'idle', epoch: 2 });
    expect(row.worker).not.toBe(holder);
    // The take resumed in a root of its own: the lost run's committed frames, then the resume, then the rest.
    expect((await readdir(sessionDir(task))).sort()).toEqual(['turn-1', 'turn-1.e2']);
    const resumed = await frameTypes(join(sessionDir(task), 'turn-1.e2'));
    expect(resumed.slice(0, before.length)).toEqual(before);
    expect(resumed[before.length]).toBe('run.resumed');
    expect(resumed.at(-1)).toBe('finish');
    expect(resumed.filter((type) => type === 'approval.requested')).toHaveLength(1);
    // Gather (a read, then findings) and Plan were not asked of the model again; Act was, from its start.
    expect([count('kill', 'gather'), count('kill', 'plan'), count('kill', 'verify')]).toEqual([2, 1, 1]);
    expect(count('kill', 'act')).toBe(3);
    const history = await taskHistory(db.pool, task.task_id);
    expect(history.filter((line) => line.epoch === 2).map((line) => line.message)).toContainEqual(
      expect.stringMatching(/^agency resume of the lost run, take 2, turn 1 of session .*turn-1\.e2$/),
    );
    expect(await runProblems(db.pool, [task.task_id], workers)).toEqual([]);
    const { rows: jobs } = await db.pool.query<{ state: string }>(
      'SELECT state FROM pgboss.job WHERE name = $1 AND singleton_key = $2',
      [taskQueueName('builtin'), task.task_id],
    );
    expect(jobs.map((job) => job.state)).toEqual(['completed']);
  }, 240_000);

  it('keeps a paused worker woken after the takeover out of the resumed run: its rows rejected, its files its own', async () => {
    const { task, gate } = await startHeldTask('pause');
    const holder = (await readTask(db.pool, task.task_id))!.worker!;
    const paused = live(holder);
    paused.child.kill('SIGSTOP');
    const resumedRoot = join(sessionDir(task), 'turn-1.e2');
    try {
      await waitFor('the task taken over and done', 120_000, async () => {
        const row = await readTask(db.pool, task.task_id);
        return row?.epoch === 2 && row.state === 'idle';
      });
      const resumedJournal = await readFile(join(resumedRoot, 'progress', 'events.ndjson'), 'utf8');
      // The stale run goes on while its worker sleeps, and finishes in its own root.
      gate.release();
      await waitFor('the stale run finished', 60_000, async () =>
        (await frameTypes(join(sessionDir(task), 'turn-1'))).includes('finish'),
      );
      expect(await readFile(join(resumedRoot, 'progress', 'events.ndjson'), 'utf8')).toBe(resumedJournal);
    } finally {
      paused.child.kill('SIGCONT');
    }
    await waitFor(`${holder}'s stale write logged`, 60_000, async () =>
      /write with epoch 1 rejected/.test(await workerLog(paused)),
    );
    const finishOf = async (root: string) =>
      (await readJournal(join(root, 'progress', 'events.ndjson'))).frames.findLast((frame) => frame.type === 'finish')
        ?.data?.['output'];
    const row = (await readTask(db.pool, task.task_id))!;
    expect(row).toMatchObject({ state: 'idle', epoch: 2 });
    expect(row.worker).not.toBe(holder);
    expect(row.result?.output).toBe(await finishOf(resumedRoot));
    expect(row.result?.output).not.toBe(await finishOf(join(sessionDir(task), 'turn-1')));
    expect(await runProblems(db.pool, [task.task_id])).toEqual([]);
    // The next turn of the session reads the resumed take's answer, not the stale one.
    const holderNow = { ...task, worker: { name: row.worker!, url: live(row.worker!).url } };
    const continued = dispatch.continue(holderNow, 'And again. [mark:again]');
    await approvePlan(join(sessionDir(task), 'turn-2'));
    await continued;
    await waitFor('the second turn done', 60_000, async () => {
      const now = await readTask(db.pool, task.task_id);
      return now?.state === 'idle' && now.result?.turns === 2;
    });
    const brief = await readFile(join(sessionDir(task), 'turn-2', 'task', 'brief.md'), 'utf8');
    expect(brief).toContain(`### Turn 1\n\n${String(await finishOf(resumedRoot))}\n`);
  }, 300_000);

  it('fails a retaken task whose turn root on the share was replaced by a link, touching nothing outside', async () => {
    const outside = await mkdtemp(join(tmpdir(), 'agency-outside-'));
    roots.push(outside);
    await writeFile(join(outside, 'keep.txt'), 'untouched\n');
    const { task, gate } = await startHeldTask('link');
    const holder = (await readTask(db.pool, task.task_id))!.worker!;
    const lostRoot = join(sessionDir(task), 'turn-1');
    await live(holder).kill('SIGKILL');
    await killRun(lostRoot);
    gate.release();
    await rm(lostRoot, { recursive: true, force: true });
    await symlink(outside, lostRoot);
    await waitFor('the task failed', 120_000, async () => (await readTask(db.pool, task.task_id))?.state === 'failed');
    await startWorker(holder, workers.find((worker) => worker.name === holder)!.root);
    const row = (await readTask(db.pool, task.task_id))!;
    expect(row.epoch).toBe(2);
    expect(row.error).toMatchObject({ type: 'internal' });
    expect(row.error?.message).toContain('its session on the shared storage cannot be used');
    expect(row.error?.message).toContain(`${lostRoot} is not a directory (a link or a file was put in its place)`);
    expect(await readdir(outside)).toEqual(['keep.txt']);
    expect(await readFile(join(outside, 'keep.txt'), 'utf8')).toBe('untouched\n');
    expect(await readdir(sessionDir(task))).toEqual(['turn-1']);
  }, 240_000);

  it('refuses to start a worker whose shared sessions path is missing, a file or a link, naming the key', async () => {
    const base = await mkdtemp(join(tmpdir(), 'agency-shared-bad-'));
    roots.push(base);
    await writeFile(join(base, 'file'), 'x');
    await mkdir(join(base, 'real'));
    await symlink(join(base, 'real'), join(base, 'link'));
    const root = await workerRoot('bad', `port: 9000\nexecutor: builtin\nfleet:\n  shared_sessions: ${base}/link\n`);
    roots.push(root);
    const start = (env: Record<string, string> = {}) =>
      startWorkerProcess('bad', root, { env: { AGENCY_DATABASE_URL: pg.url, ...env }, scripted: false }).then(
        () => 'started',
        (error: Error) => error.message,
      );
    expect(await start()).toMatch(
      /fleet\.shared_sessions in .*config\.yaml: .*\/link is a symbolic link; name the directory it points to/,
    );
    expect(await start({ AGENCY_FLEET_SHARED_SESSIONS: join(base, 'missing') })).toMatch(
      /AGENCY_FLEET_SHARED_SESSIONS: .*\/missing does not exist; mount the shared storage there/,
    );
    expect(await start({ AGENCY_FLEET_SHARED_SESSIONS: join(base, 'file') })).toMatch(
      /AGENCY_FLEET_SHARED_SESSIONS: .*\/file is not a directory/,
    );
    expect(await start({ AGENCY_FLEET_SHARED_SESSIONS: randomUUID() })).toMatch(
      /AGENCY_FLEET_SHARED_SESSIONS: "[0-9a-f-]+" is not an absolute path/,
    );
  }, 120_000);
});
