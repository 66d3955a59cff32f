import { chmodSync, mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createBwrapSandbox } from './bwrap-sandbox.ts';
import { checkSandbox } from './check-sandbox.ts';
import { type RunSandboxedOptions, runSandboxed } from './run-sandboxed.ts';

// The escape battery, planting part: files a sandboxed command leaves for the host. The workdir is mounted nosuid
// inside, but the host sees the file as it is: a setuid binary owned by agency's user (root, often) that any host
// user could run, or a FIFO or socket a host process might open.
const sandbox = createBwrapSandbox();
const status = await checkSandbox(sandbox);
const skipReason = status.ok ? '' : ` (skipped: ${status.error.message})`;
if (!status.ok) console.warn(`sandbox planting battery skipped: ${status.error.message}`);

let base: string;
let workdir: string;
let shared: string;
beforeEach(() => {
  base = realpathSync(mkdtempSync(join(tmpdir(), 'agency-escape-plant-')));
  workdir = join(base, 'work');
  shared = join(base, 'shared');
  for (const dir of [workdir, shared]) mkdirSync(dir);
});
afterEach(() => rmSync(base, { recursive: true, force: true }));

function bash(script: string, options: Partial<RunSandboxedOptions> = {}) {
  return runSandboxed(sandbox, ['bash', '-c', script], { workdir, timeoutMs: 10_000, ...options });
}

const setIdBits = (path: string) => statSync(path).mode & 0o6000;

describe.skipIf(!status.ok)(`planting battery${skipReason}`, () => {
  it('cannot leave a setuid or setgid copy of a binary', async () => {
    const result = await bash(
      'cp /usr/bin/id id; chmod 4755 id; cp /usr/bin/id id-g; chmod g+s id-g; install -m 6755 /usr/bin/id id-i; echo done',
    );
    expect(result.stdout).toBe('done\n');
    for (const name of ['id', 'id-g', 'id-i']) expect(setIdBits(join(workdir, name)), name).toBe(0);
    expect(result.stderr).toContain('Operation not permitted');
  });

  it('cannot create a setuid file directly with open(O_CREAT, 04755)', async () => {
    const result = await runSandboxed(
      sandbox,
      ['perl', '-e', 'use Fcntl; sysopen(my $f, "made", O_CREAT | O_WRONLY, 04755) or print "refused: $!\\n"'],
      { workdir, timeoutMs: 10_000 },
    );
    expect(result.stdout).toBe('refused: Operation not permitted\n');
    expect(readdirSync(workdir)).toEqual([]);
  });

  it('cannot leave FIFOs or device nodes, and the sockets it leaves are removed and reported', async () => {
    const result = await bash(
      'mkfifo fifo; mknod node c 1 3; ' +
        `perl -MIO::Socket::UNIX -e 'IO::Socket::UNIX->new(Local => "sock", Listen => 1) or die $!'; ls; echo done`,
      { readWritePaths: [shared] },
    );
    expect(result.stdout).toBe('sock\ndone\n'); // the socket existed while the sandbox ran
    expect(readdirSync(workdir)).toEqual([]);
    expect(result.quarantined).toEqual([{ path: join(workdir, 'sock'), what: 'socket', action: 'removed' }]);
    expect(result.scanIncomplete).toBe(false);
  });

  it('scans readWritePaths too, and never follows a link out of them', async () => {
    // A host file that is setuid on purpose: a scan that followed the link would strip it.
    const victim = join(base, 'victim');
    writeFileSync(victim, '#!/bin/sh\n');
    chmodSync(victim, 0o4755);
    const result = await bash(
      `ln -s ${victim} ${shared}/link; perl -MIO::Socket::UNIX -e 'IO::Socket::UNIX->new(Local => "${shared}/s", Listen => 1)'`,
      { readWritePaths: [shared] },
    );
    expect(result.quarantined).toEqual([{ path: join(shared, 's'), what: 'socket', action: 'removed' }]);
    expect(readdirSync(shared)).toEqual(['link']);
    expect(statSync(victim).mode & 0o7777).toBe(0o4755);
  });
});
