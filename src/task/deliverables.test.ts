import { execFile, execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmod, mkdir, mkdtemp, realpath, rm, symlink, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { listDeliverables, runDeliverables } from './deliverables.ts';
import { type TaskPaths, taskPaths } from './layout.ts';

let root: string;
let paths: TaskPaths;

beforeEach(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), 'agency-deliverables-')));
  paths = taskPaths(root);
  await mkdir(join(paths.artifacts, 'sub'), { recursive: true });
  await writeFile(join(paths.artifacts, 'report.md'), '# Report\n');
  await writeFile(join(paths.artifacts, 'sub', 'data.json'), '{"ok":true}\n');
});
afterEach(() => rm(root, { recursive: true, force: true }));

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const artifact = (name: string) => join(paths.artifacts, name);

describe('listDeliverables', () => {
  it('lists regular files with their size and SHA-256, sorted by path', async () => {
    await writeFile(artifact('.report.md.0a1b2c3d4e5f.agency-tmp'), 'half-written');
    expect(await listDeliverables(paths)).toEqual({
      deliverables: [
        {
          path: 'progress/artifacts/report.md',
          kind: 'report',
          title: 'report.md',
          mime: 'text/markdown',
          size: 9,
          sha256: sha256('# Report\n'),
        },
        {
          path: 'progress/artifacts/sub/data.json',
          kind: 'artifact',
          title: 'sub/data.json',
          mime: 'application/json',
          size: 12,
          sha256: sha256('{"ok":true}\n'),
        },
      ],
      refused: [],
    });
  });

  it('refuses symlinks without reading them, whether they point outside or at a control file', async () => {
    // A FIFO with no writer hangs any reader that follows the link to it; the walk must never get there.
    const outside = join(root, 'outside');
    await mkdir(outside);
    execFileSync('mkfifo', [join(outside, 'pipe')]);
    await symlink('/etc/passwd', artifact('passwd.txt'));
    await symlink(join(outside, 'pipe'), artifact('pipe.txt'));
    await symlink('../state.json', artifact('state.json'));
    await symlink('..', artifact('up'));
    const { deliverables, refused } = await listDeliverables(paths);
    expect(deliverables.map((file) => file.title)).toEqual(['report.md', 'sub/data.json']);
    expect(refused).toEqual([
      'progress/artifacts/passwd.txt is not delivered: it is a symlink (its target is not read)',
      'progress/artifacts/pipe.txt is not delivered: it is a symlink (its target is not read)',
      'progress/artifacts/state.json is not delivered: it is a symlink (its target is not read)',
      'progress/artifacts/up is not delivered: it is a symlink (its target is not read)',
    ]);
  }, 10_000);

  it('refuses FIFOs, sockets and setuid or setgid files, without hanging', async () => {
    execFileSync('mkfifo', [artifact('fifo')]);
    execFileSync('python3', [
      '-c',
      `import socket; socket.socket(socket.AF_UNIX).bind(${JSON.stringify(artifact('sock'))})`,
    ]);
    await writeFile(artifact('suid.sh'), '#!/bin/sh\n');
    await chmod(artifact('suid.sh'), 0o4755);
    await writeFile(artifact('sgid.sh'), '#!/bin/sh\n');
    await chmod(artifact('sgid.sh'), 0o2755);
    const { deliverables, refused } = await listDeliverables(paths);
    expect(deliverables.map((file) => file.title)).toEqual(['report.md', 'sub/data.json']);
    expect(refused).toEqual([
      'progress/artifacts/fifo is not delivered: it is a FIFO',
      'progress/artifacts/sgid.sh is not delivered: it is setuid or setgid',
      'progress/artifacts/sock is not delivered: it is a socket',
      'progress/artifacts/suid.sh is not delivered: it is setuid or setgid',
    ]);
  }, 10_000);

  it('refuses files over the size, count and total limits, and stops at the entry limit', async () => {
    await writeFile(artifact('big.txt'), 'x'.repeat(100));
    const sized = await listDeliverables(paths, { maxFileBytes: 50 });
    expect(sized.refused).toEqual([
      'progress/artifacts/big.txt is not delivered: it is 100 bytes, over the 50-byte limit for one deliverable',
    ]);
    const counted = await listDeliverables(paths, { maxFiles: 1 });
    expect(counted.deliverables.map((file) => file.title)).toEqual(['big.txt']);
    expect(counted.refused).toEqual(['2 files under progress/artifacts/ are not delivered: over the 1-file limit']);
    const totalled = await listDeliverables(paths, { maxTotalBytes: 110 });
    expect(totalled.deliverables.map((file) => file.title)).toEqual(['big.txt', 'report.md']);
    expect(totalled.refused[0]).toMatch(/^1 files under progress\/artifacts\/ are not delivered: they would take/);
    const walked = await listDeliverables(paths, { maxEntries: 2 });
    expect(walked.refused).toEqual(['progress/artifacts/ has more than 2 entries; the listing stopped there']);
    const shallow = await listDeliverables(paths, { maxDepth: 0 });
    expect(shallow.refused).toEqual([
      'progress/artifacts/sub is not delivered: it is nested deeper than 0 directories',
    ]);
  });

  it('journals each refusal once per run as a warning', async () => {
    await symlink('/etc/passwd', artifact('passwd.txt'));
    const warnings: string[] = [];
    const session = { paths, warnings, warn: (message: string) => void warnings.push(message) };
    await runDeliverables(session);
    await runDeliverables(session);
    expect(warnings).toEqual([
      'progress/artifacts/passwd.txt is not delivered: it is a symlink (its target is not read)',
    ]);
  });
});

// The listing runs in a child process so its peak RSS is its own, not the test runner's.
const LIST_IN_CHILD = `
import { listDeliverables } from ${JSON.stringify(new URL('./deliverables.ts', import.meta.url).href)};
import { taskPaths } from ${JSON.stringify(new URL('./layout.ts', import.meta.url).href)};
const before = process.resourceUsage().maxRSS;
const listing = await listDeliverables(taskPaths(process.argv[1]));
const after = process.resourceUsage().maxRSS;
console.log(JSON.stringify({ growthKiB: after - before, listing }));
`;

describe('listDeliverables on huge files', () => {
  it('refuses a 3 GiB sparse file unread and streams a 400 MiB one with flat memory', async () => {
    await writeFile(artifact('huge.bin'), '');
    await truncate(artifact('huge.bin'), 3 * 2 ** 30);
    await writeFile(artifact('mid.bin'), '');
    await truncate(artifact('mid.bin'), 400 * 2 ** 20);
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--input-type=module', '--eval', LIST_IN_CHILD, root],
      { maxBuffer: 1 << 20 },
    );
    const { growthKiB, listing } = JSON.parse(stdout) as {
      growthKiB: number;
      listing: Awaited<ReturnType<typeof listDeliverables>>;
    };
    expect(listing.refused).toEqual([
      `progress/artifacts/huge.bin is not delivered: it is ${3 * 2 ** 30} bytes, over the ${2 ** 30}-byte limit for one deliverable`,
    ]);
    const mid = listing.deliverables.find((file) => file.title === 'mid.bin');
    const zeros = createHash('sha256');
    for (let i = 0; i < 400; i++) zeros.update(Buffer.alloc(2 ** 20));
    expect(mid).toMatchObject({ size: 400 * 2 ** 20, sha256: zeros.digest('hex') });
    expect(growthKiB).toBeLessThan(200 * 1024);
  }, 60_000);
});
