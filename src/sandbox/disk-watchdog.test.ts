import { closeSync, linkSync, mkdtempSync, openSync, rmSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { diskUsage, startDiskWatchdog } from './disk-watchdog.ts';

const MiB = 1024 * 1024;
let base: string;
beforeEach(() => {
  base = mkdtempSync(join(tmpdir(), 'agency-disk-'));
});
afterEach(() => rmSync(base, { recursive: true, force: true }));

const dense = (path: string, bytes: number) => writeFileSync(path, Buffer.alloc(bytes, 1));

describe('diskUsage', () => {
  it('counts allocated blocks: a sparse file what it holds, a hard link once, a symlink not followed', async () => {
    const empty = await diskUsage([base]);
    dense(join(base, 'a'), 2 * MiB);
    linkSync(join(base, 'a'), join(base, 'a-again'));
    const fd = openSync(join(base, 'sparse'), 'w');
    closeSync(fd);
    truncateSync(join(base, 'sparse'), 10 * 1024 * MiB);
    const outside = mkdtempSync(join(tmpdir(), 'agency-disk-outside-'));
    try {
      dense(join(outside, 'big'), 8 * MiB);
      symlinkSync(outside, join(base, 'link'));
      const usage = await diskUsage([base]);
      const added = usage.bytes - empty.bytes;
      expect(added).toBeGreaterThanOrEqual(2 * MiB);
      expect(added).toBeLessThan(3 * MiB);
      expect(usage.incomplete).toBe(false);
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  });
});

describe('startDiskWatchdog', () => {
  it('calls onExceeded once the paths have grown past the limit, and says so when stopped', async () => {
    dense(join(base, 'before'), 4 * MiB); // there before the watch: not counted
    let calls = 0;
    const watchdog = await startDiskWatchdog([base], 3 * MiB, () => calls++);
    dense(join(base, 'one'), 2 * MiB);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(calls).toBe(0);
    dense(join(base, 'two'), 2 * MiB);
    await expect.poll(() => calls, { timeout: 1000, interval: 10 }).toBe(1);
    const stopped = await watchdog.stop();
    expect(stopped.exceeded).toBe(true);
    expect(stopped.addedBytes).toBeGreaterThanOrEqual(4 * MiB);
    expect(calls).toBe(1);
  });

  it("counts the file systems' growth when a walk cannot see every entry", async () => {
    for (let i = 0; i < 20; i++) writeFileSync(join(base, `small-${i}`), '');
    let calls = 0;
    const watchdog = await startDiskWatchdog([base], MiB, () => calls++, { maxEntries: 5 });
    dense(join(base, 'big'), 4 * MiB);
    await expect.poll(() => calls, { timeout: 1000, interval: 10 }).toBe(1);
    expect((await watchdog.stop()).exceeded).toBe(true);
  });

  it('reports nothing for a run that stays under the limit', async () => {
    const watchdog = await startDiskWatchdog([base], 8 * MiB, () => {
      throw new Error('not exceeded');
    });
    dense(join(base, 'file'), MiB);
    expect(await watchdog.stop()).toMatchObject({ exceeded: false });
  });
});
