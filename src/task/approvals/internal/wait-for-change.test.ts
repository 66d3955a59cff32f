import { mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AgencyError } from '../../../core/errors.ts';
import { createTaskFiles } from '../../fs/task-files.ts';
import { type CheckReason, waitForChange } from './wait-for-change.ts';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'agency-wait-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const readWhenPresent = (file: string, reasons: CheckReason[]) => async (reason: CheckReason) => {
  reasons.push(reason);
  return createTaskFiles(path.dirname(file)).readText(file);
};

describe('waitForChange', () => {
  it('wakes on a watcher event long before the next poll', async () => {
    const reasons: CheckReason[] = [];
    const file = path.join(dir, 'a.json');
    const waiting = waitForChange(readWhenPresent(file, reasons), { dir, fileName: 'a.json', pollMs: 60_000 });
    await new Promise((resolve) => setTimeout(resolve, 20));
    const started = Date.now();
    // Written whole, as the files it waits for are (a rename): a plain write's empty file could be read first.
    await writeFile(`${file}.tmp`, 'x');
    await rename(`${file}.tmp`, file);
    await expect(waiting).resolves.toBe('x');
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(reasons[0]).toBe('start');
    expect(reasons.at(-1)).toBe('watch');
  });

  it('falls back to polling when the directory cannot be watched', async () => {
    const reasons: CheckReason[] = [];
    const missing = path.join(dir, 'not-yet');
    const file = path.join(dir, 'b.json');
    const waiting = waitForChange(readWhenPresent(file, reasons), { dir: missing, fileName: 'b.json', pollMs: 5 });
    await writeFile(file, 'y');
    await expect(waiting).resolves.toBe('y');
    expect(reasons).toContain('poll');
  });

  it('sees a file that was there before it started', async () => {
    const file = path.join(dir, 'c.json');
    await writeFile(file, 'z');
    await expect(waitForChange(readWhenPresent(file, []), { dir, fileName: 'c.json', pollMs: 60_000 })).resolves.toBe(
      'z',
    );
  });

  it('rejects with aborted, and stops checking', async () => {
    const reasons: CheckReason[] = [];
    const controller = new AbortController();
    const waiting = waitForChange(readWhenPresent(path.join(dir, 'd.json'), reasons), {
      dir,
      fileName: 'd.json',
      pollMs: 5,
      signal: controller.signal,
    });
    controller.abort();
    await expect(waiting).rejects.toSatisfy((error) => AgencyError.hasCode(error, 'aborted'));
    const seen = reasons.length;
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(reasons.length).toBe(seen);
  });

  it('runs a re-check the check asked for', async () => {
    const check = async (reason: CheckReason, recheck: (ms: number) => void) => {
      if (reason === 'recheck') return reason;
      recheck(5);
      return undefined;
    };
    await expect(waitForChange(check, { dir, fileName: 'f.json', pollMs: 60_000 })).resolves.toBe('recheck');
  });

  it('never runs two checks at once', async () => {
    let running = 0;
    let most = 0;
    let calls = 0;
    const check = async () => {
      running++;
      most = Math.max(most, running);
      await new Promise((resolve) => setTimeout(resolve, 8));
      running--;
      return ++calls >= 5 ? calls : undefined;
    };
    await waitForChange(check, { dir, fileName: 'e.json', pollMs: 1 });
    expect(most).toBe(1);
  });
});
