import { type ChildProcess, spawn } from 'node:child_process';
import { mkdir, mkdtemp, readFile, readdir, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { rejection } from '../../../test/support/rejection.ts';
import type { DispatchedTask } from './task-dispatch.ts';
import { createWorkspaceLocks, lockFileOf, workspaceLockHolder } from './workspace-lock.ts';
import { isTempFileName } from '../../core/temp-files.ts';

const CHILD = join(import.meta.dirname, '../../../test/support/lock-child.ts');
const children: ChildProcess[] = [];

afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
});

async function setup(): Promise<{ dir: string; workdir: string }> {
  const root = await mkdtemp(join(tmpdir(), 'agency-locks-'));
  const workdir = join(root, 'work');
  await mkdir(workdir);
  return { dir: join(root, 'locks'), workdir };
}

const task: DispatchedTask = {
  worker: { name: 'w1', url: 'http://127.0.0.1:1' },
  task_id: 'task-01jz0000000000000000000001',
  session_id: '6f1c2a8e-0000-4000-8000-000000000001',
};

function locks(dir: string, director = 'd1', taskRunning = async () => false) {
  return createWorkspaceLocks({ dir, director, taskRunning });
}

function child(args: string[]): { process: ChildProcess; exited: Promise<number | null>; output: () => string } {
  const process_ = spawn(process.execPath, [CHILD, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(process_);
  let output = '';
  process_.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  process_.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => process_.once('exit', resolve));
  return { process: process_, exited, output: () => output };
}

async function holdInChild(dir: string, workdir: string, attached?: DispatchedTask) {
  const held = child([dir, workdir, 'hold', ...(attached ? [JSON.stringify(attached)] : [])]);
  await new Promise<void>((resolve, reject) => {
    held.process.stdout!.on('data', () => held.output().includes('held') && resolve());
    void held.exited.then(() => reject(new Error(`lock child exited:\n${held.output()}`)));
  });
  return held;
}

describe('workspace locks', () => {
  it('lets one holder at a time in, names the holder, and frees the workdir on release', async () => {
    const { dir, workdir } = await setup();
    const first = await locks(dir, 'sched').acquire(workdir, { purpose: 'nightly run' });
    const error = await rejection(locks(dir, 'github').acquire(workdir, { purpose: 'issue 4' }));
    expect(error.code).toBe('workspace_locked');
    expect(error.retryable).toBe(true);
    expect(error.message).toContain('director sched');
    expect(error.message).toContain('nightly run');
    expect(await workspaceLockHolder(dir, workdir)).toMatchObject({ director: 'sched', pid: process.pid });
    await first.release();
    expect(await workspaceLockHolder(dir, workdir)).toBeUndefined();
    const second = await locks(dir, 'github').acquire(workdir, { purpose: 'issue 4' });
    await second.release();
  });

  it('locks the real directory: a symlink to a locked workdir is the same workdir', async () => {
    const { dir, workdir } = await setup();
    const link = `${workdir}-link`;
    await symlink(workdir, link);
    const held = await locks(dir).acquire(workdir, { purpose: 'a' });
    expect((await rejection(locks(dir, 'd2').acquire(`${link}/`, { purpose: 'b' }))).code).toBe('workspace_locked');
    expect(held.workdir).toBe(workdir);
    await held.release();
  });

  it('refuses a relative, missing or non-directory workdir, naming the field', async () => {
    const { dir, workdir } = await setup();
    await writeFile(join(workdir, 'file'), 'x');
    for (const bad of ['relative/dir', join(workdir, 'missing'), join(workdir, 'file'), `${workdir}\0x`]) {
      const error = await rejection(locks(dir).acquire(bad, { purpose: 'x' }));
      expect(error.code).toBe('invalid_argument');
      expect(error.details).toMatchObject({ field: 'workdir' });
    }
  });

  it('reports a hand-edited lock file as unreadable instead of taking it over', async () => {
    const { dir, workdir } = await setup();
    await mkdir(dir, { recursive: true });
    await writeFile(lockFileOf(dir, workdir), '{"version":1,"pid":"nope"}');
    const error = await rejection(locks(dir).acquire(workdir, { purpose: 'x' }));
    expect(error.code).toBe('workspace_locked');
    expect(error.retryable).toBe(false);
    expect(error.message).toContain(lockFileOf(dir, workdir));
    expect(error.message).toContain('Delete it');
  });

  it('refuses to follow a lock file replaced by a symlink', async () => {
    const { dir, workdir } = await setup();
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, 'target'), 'x');
    await symlink(join(dir, 'target'), lockFileOf(dir, workdir));
    expect((await rejection(locks(dir).acquire(workdir, { purpose: 'x' }))).message).toContain('cannot be read');
  });

  it('takes over the lock of a holder killed with SIGKILL', async () => {
    const { dir, workdir } = await setup();
    const held = await holdInChild(dir, workdir);
    expect((await rejection(locks(dir).acquire(workdir, { purpose: 'x' }))).message).toContain('director is running');
    held.process.kill('SIGKILL');
    await held.exited;
    const mine = await locks(dir).acquire(workdir, { purpose: 'after the kill' });
    expect(await workspaceLockHolder(dir, workdir)).toMatchObject({ pid: process.pid, purpose: 'after the kill' });
    await mine.release();
    expect((await readdir(dir)).filter(isTempFileName)).toEqual([]);
  });

  it('keeps a dead holder’s lock while its task still runs, and lets the same director resume it', async () => {
    const { dir, workdir } = await setup();
    const held = await holdInChild(dir, workdir, task);
    held.process.kill('SIGKILL');
    await held.exited;
    const error = await rejection(locks(dir, 'other', async () => true).acquire(workdir, { purpose: 'x' }));
    expect(error.message).toContain('task task-01jz0000000000000000000001 still runs');
    const holder = (await workspaceLockHolder(dir, workdir))!.director;
    const resumed = await locks(dir, holder, async () => true).acquire(workdir, { purpose: 'resume', resume: task });
    await resumed.attach(task);
    expect(await workspaceLockHolder(dir, workdir)).toMatchObject({ director: holder, task, pid: process.pid });
    await resumed.release();
  });

  it('treats a live pid with another start time as a reused pid: the lock is stale', async () => {
    const { dir, workdir } = await setup();
    await mkdir(dir, { recursive: true });
    const forged = {
      version: 1,
      workdir,
      director: 'old',
      purpose: 'x',
      host: (await import('node:os')).hostname(),
      pid: process.pid,
      process_started_at: 1_000,
      acquired_at: new Date().toISOString(),
      nonce: 'n',
      task: null,
    };
    await writeFile(lockFileOf(dir, workdir), JSON.stringify(forged));
    const mine = await locks(dir).acquire(workdir, { purpose: 'y' });
    expect(JSON.parse(await readFile(lockFileOf(dir, workdir), 'utf8'))).toMatchObject({ director: 'd1' });
    await mine.release();
  });

  it('attach fails once the lock was taken from its holder', async () => {
    const { dir, workdir } = await setup();
    const held = await locks(dir).acquire(workdir, { purpose: 'x' });
    await writeFile(
      lockFileOf(dir, workdir),
      (await readFile(lockFileOf(dir, workdir), 'utf8')).replace(/"nonce":"[^"]+"/, '"nonce":"other"'),
    );
    expect((await rejection(held.attach(task))).message).toContain('no longer holds');
  });

  it('never lets two racing processes hold one workdir at once', async () => {
    const { dir, workdir } = await setup();
    const log = join(workdir, '..', 'race.log');
    await writeFile(log, '');
    const racers = [child([dir, workdir, 'race', log, '25']), child([dir, workdir, 'race', log, '25'])];
    const codes = await Promise.all(racers.map((racer) => racer.exited));
    expect(codes, racers.map((racer) => racer.output()).join('\n')).toEqual([0, 0]);
    const lines = (await readFile(log, 'utf8')).trim().split('\n');
    expect(lines).toHaveLength(100);
    for (let index = 0; index < lines.length; index += 2) {
      const pid = lines[index]!.split(' ')[1];
      expect([lines[index], lines[index + 1]]).toEqual([`enter ${pid}`, `exit ${pid}`]);
    }
  }, 60_000);
});
