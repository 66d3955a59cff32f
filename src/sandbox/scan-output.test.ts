import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  realpathSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { scanSandboxOutput } from './scan-output.ts';

let base: string;
let work: string;
beforeEach(() => {
  base = realpathSync(mkdtempSync(join(tmpdir(), 'agency-scan-')));
  work = join(base, 'work');
  mkdirSync(join(work, 'deep', 'er'), { recursive: true });
});
afterEach(() => rmSync(base, { recursive: true, force: true }));

const modeOf = (path: string) => statSync(path).mode & 0o7777;

function plant(path: string, mode: number): string {
  writeFileSync(path, '#!/bin/sh\n');
  chmodSync(path, mode);
  return path;
}

async function listenOn(path: string): Promise<() => Promise<void>> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(path, resolve));
  // Closing would unlink the socket; keep it, as a sandbox that exits leaves it.
  return () => new Promise((resolve) => server.close(() => resolve()));
}

describe('scanSandboxOutput', () => {
  it('strips setuid and setgid bits and keeps the rest of the mode', async () => {
    const suid = plant(join(work, 'deep', 'er', 'suid'), 0o4755);
    const sgid = plant(join(work, 'sgid'), 0o2711);
    const plain = plant(join(work, 'plain'), 0o755);
    const scan = await scanSandboxOutput([work]);
    expect(scan.quarantined).toEqual(
      expect.arrayContaining([
        { path: suid, what: 'setuid', action: 'stripped' },
        { path: sgid, what: 'setgid', action: 'stripped' },
      ]),
    );
    expect(scan.quarantined).toHaveLength(2);
    expect([modeOf(suid), modeOf(sgid), modeOf(plain)]).toEqual([0o755, 0o711, 0o755]);
    expect(scan.incomplete).toBe(false);
  });

  it('strips a setuid file that nobody may read', async () => {
    const hidden = plant(join(work, 'hidden'), 0o4000);
    const scan = await scanSandboxOutput([work]);
    expect(scan.quarantined).toEqual([{ path: hidden, what: 'setuid', action: 'stripped' }]);
    expect(modeOf(hidden)).toBe(0);
  });

  it('removes FIFOs and sockets', async () => {
    execFileSync('mkfifo', [join(work, 'fifo')]);
    const close = await listenOn(join(work, 'deep', 'sock'));
    try {
      const scan = await scanSandboxOutput([work]);
      expect(scan.quarantined).toEqual(
        expect.arrayContaining([
          { path: join(work, 'fifo'), what: 'fifo', action: 'removed' },
          { path: join(work, 'deep', 'sock'), what: 'socket', action: 'removed' },
        ]),
      );
      expect(readdirSync(work).sort()).toEqual(['deep']);
      expect(existsSync(join(work, 'deep', 'sock'))).toBe(false);
    } finally {
      await close();
    }
  });

  it('never follows a symlink, to a file or to a directory', async () => {
    const outside = join(base, 'outside');
    mkdirSync(outside);
    const victim = plant(join(outside, 'victim'), 0o4755);
    symlinkSync(victim, join(work, 'to-file'));
    symlinkSync(outside, join(work, 'to-dir'));
    const scan = await scanSandboxOutput([work]);
    expect(scan.quarantined).toEqual([]);
    expect(modeOf(victim)).toBe(0o4755);
  });

  it('stops at maxEntries and says the scan is incomplete', async () => {
    for (let i = 0; i < 50; i++) writeFileSync(join(work, `f${i}`), '');
    plant(join(work, 'deep', 'er', 'late'), 0o4755);
    const scan = await scanSandboxOutput([work], { maxEntries: 10 });
    expect(scan.incomplete).toBe(true);
    expect(scan.entries).toBeLessThanOrEqual(10);
  });

  it('walks nested roots once, and a root that is a file', async () => {
    const suid = plant(join(work, 'deep', 'suid'), 0o4755);
    const single = plant(join(base, 'single'), 0o6755);
    const scan = await scanSandboxOutput([work, join(work, 'deep'), single]);
    expect(scan.quarantined).toEqual(
      expect.arrayContaining([
        { path: suid, what: 'setuid', action: 'stripped' },
        { path: single, what: 'setuid', action: 'stripped' },
      ]),
    );
    expect(scan.quarantined).toHaveLength(2);
  });
});
