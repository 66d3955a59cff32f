import { spawn } from 'node:child_process';
import { hostname } from 'node:os';
import { mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { rejection } from '../../test/support/rejection.ts';
import { acquireRunLock } from './lock.ts';

const CHILD = join(import.meta.dirname, '../../test/support/run-lock-child.ts');

function racer(lock: string, log: string, rounds: number): Promise<{ code: number | null; output: string }> {
  const child = spawn(process.execPath, [CHILD, lock, log, String(rounds)], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, output })));
}

// The pid of a process that has ended.
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '']);
  await new Promise((resolve) => child.once('exit', resolve));
  return child.pid!;
}

describe('the run lock', () => {
  it('never lets two racing processes hold it at once', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'agency-run-lock-'));
    const log = join(dir, 'race.log');
    await writeFile(log, '');
    const racers = await Promise.all([racer(join(dir, 'lock'), log, 40), racer(join(dir, 'lock'), log, 40)]);
    expect(
      racers.map(({ code }) => code),
      racers.map(({ output }) => output).join('\n'),
    ).toEqual([0, 0]);
    const lines = (await readFile(log, 'utf8')).trim().split('\n');
    expect(lines).toHaveLength(160);
    for (let index = 0; index < lines.length; index += 2) {
      const pid = lines[index]!.split(' ')[1];
      expect([lines[index], lines[index + 1]]).toEqual([`enter ${pid}`, `exit ${pid}`]);
    }
    expect(await readdir(dir)).toEqual(['race.log']);
  }, 60_000);

  it('refuses a lock whose process lives, naming it, and takes over one whose process is gone or torn', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'agency-run-lock-'));
    const path = join(dir, 'lock');
    const held = await acquireRunLock(path);
    const refused = await rejection(acquireRunLock(path));
    expect(refused.code).toBe('task_locked');
    expect(refused.message).toContain(`pid ${process.pid}`);
    await held.release();

    const dead = await deadPid();
    const stale = { pid: dead, host: hostname(), started_at: '2026-01-02T03:04:05.000Z' };
    await writeFile(path, `${JSON.stringify(stale)}\n`);
    const taken = await acquireRunLock(path);
    expect(taken.takenOver).toEqual({ pid: dead, startedAt: stale.started_at });
    expect(JSON.parse(await readFile(path, 'utf8'))).toMatchObject({ pid: process.pid });
    await taken.release();

    await writeFile(path, '{"pid":');
    const afterTorn = await acquireRunLock(path);
    expect(JSON.parse(await readFile(path, 'utf8'))).toMatchObject({ pid: process.pid });
    await afterTorn.release();
    expect(await readdir(dir)).toEqual([]);
  });

  it('leaves a lock taken on another host alone, and says how to free it', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'agency-run-lock-'));
    const path = join(dir, 'lock');
    await writeFile(path, `${JSON.stringify({ pid: 1, host: 'elsewhere', started_at: '2026-01-02T03:04:05.000Z' })}\n`);
    const error = await rejection(acquireRunLock(path));
    expect(error.code).toBe('task_locked');
    expect(error.message).toContain(`delete ${path}`);
    expect(await readdir(dir)).toEqual(['lock']);
  });
});
