import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createServer, type Server } from 'node:net';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { AgencyError } from '../core/errors.ts';
import { createBwrapSandbox } from './bwrap-sandbox.ts';
import { checkSandbox } from './check-sandbox.ts';
import { type RunSandboxedOptions, runSandboxed } from './run-sandboxed.ts';

// The escape battery: real bubblewrap, real attempts to get out. Where bwrap cannot run, it is skipped with the
// reason; the fail-closed tests in check-sandbox.test.ts run everywhere.
const sandbox = createBwrapSandbox();
const status = await checkSandbox(sandbox);
const skipReason = status.ok ? '' : ` (skipped: ${status.error.message})`;
if (!status.ok) console.warn(`sandbox escape battery skipped: ${status.error.message}`);

let base: string;
let workdir: string;
let outside: string;
let readOnly: string;
const token = () => randomBytes(8).toString('hex');

beforeEach(() => {
  base = realpathSync(mkdtempSync(join(tmpdir(), 'agency-escape-')));
  workdir = join(base, 'work');
  outside = join(base, 'outside');
  readOnly = join(base, 'ro');
  for (const dir of [workdir, outside, readOnly]) mkdirSync(dir);
});
afterEach(() => rmSync(base, { recursive: true, force: true }));

function bash(script: string, options: Partial<RunSandboxedOptions> = {}) {
  return runSandboxed(sandbox, ['bash', '-c', script], {
    workdir,
    timeoutMs: 5000,
    ...options,
  });
}

/** Live (non-zombie) host processes whose command line contains `needle`. */
function processesMatching(needle: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (cmdline.includes(needle) && stat[stat.lastIndexOf(')') + 2] !== 'Z') pids.push(Number(entry));
    } catch {
      // exited while we looked
    }
  }
  return pids;
}

async function waitFor(condition: () => boolean, timeoutMs: number, stepMs = 20): Promise<number> {
  const started = performance.now();
  while (!condition()) {
    if (performance.now() - started > timeoutMs) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, stepMs));
  }
  return performance.now() - started;
}

describe.skipIf(!status.ok)(`escape battery${skipReason}`, () => {
  describe('reading', () => {
    it('cannot read a canary outside its paths, but can read what is bound', async () => {
      const secret = `canary-${token()}`;
      writeFileSync(join(outside, 'canary.txt'), secret);
      writeFileSync(join(readOnly, 'visible.txt'), 'bound');
      const result = await bash(`cat ${outside}/canary.txt; cat ${readOnly}/visible.txt`, {
        readOnlyPaths: [readOnly],
      });
      expect(result.stdout).toBe('bound');
      expect(result.stderr).toContain('No such file or directory');
      expect(result.stdout + result.stderr).not.toContain(secret);
    });

    it("cannot see /root, the host's home, or /etc/shadow", async () => {
      const paths = [...new Set(['/root', homedir()])];
      const result = await bash(
        `for p in ${paths.join(' ')}; do ls -A "$p" && echo "LISTED $p"; done; cat /etc/shadow`,
      );
      expect(result.stdout).not.toContain('LISTED');
      expect(result.stderr).toContain('/etc/shadow: No such file or directory');
    });

    it('sees only the environment it was given', async () => {
      const result = await bash('env', { env: { GIVEN: 'yes' } });
      const names = result.stdout
        .trim()
        .split('\n')
        .map((line) => line.split('=')[0]);
      expect(names.sort()).toEqual(['GIVEN', 'PATH', 'PWD', 'SHLVL', '_']);
    });
  });

  describe('writing', () => {
    it('can write its workdir (control)', async () => {
      const result = await bash('echo ok > inside.txt');
      expect(result.exitCode).toBe(0);
      expect(readFileSync(join(workdir, 'inside.txt'), 'utf8')).toBe('ok\n');
    });

    it("cannot write the workdir's parent, an unbound dir or the host's /tmp", async () => {
      const hostTmpFile = join(tmpdir(), `agency-escape-${token()}.txt`);
      const rootTmpFile = `/tmp/agency-escape-${token()}.txt`;
      const result = await bash(
        `echo x > ../parent.txt; echo x > ${outside}/out.txt; echo x > ${hostTmpFile}; echo x > ${rootTmpFile}`,
      );
      expect(existsSync(join(base, 'parent.txt'))).toBe(false);
      expect(existsSync(join(outside, 'out.txt'))).toBe(false);
      expect(existsSync(hostTmpFile)).toBe(false);
      expect(existsSync(rootTmpFile)).toBe(false);
      expect(result.timedOut).toBe(false);
    });

    it('cannot write a read-only path or system directories', async () => {
      writeFileSync(join(readOnly, 'keep.txt'), 'original');
      const result = await bash(
        `echo x > ${readOnly}/new.txt; echo x > ${readOnly}/keep.txt; touch /usr/agency-${token()}; echo done`,
        { readOnlyPaths: [readOnly] },
      );
      expect(result.stdout).toBe('done\n');
      expect(result.stderr.match(/Read-only file system/g)).toHaveLength(3);
      expect(existsSync(join(readOnly, 'new.txt'))).toBe(false);
      expect(readFileSync(join(readOnly, 'keep.txt'), 'utf8')).toBe('original');
    });
  });

  describe('network', () => {
    let server: Server;
    let port: number;
    let connections: number;
    beforeAll(async () => {
      server = createServer((socket) => {
        connections += 1;
        socket.destroy();
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      port = (server.address() as { port: number }).port;
    });
    afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
    beforeEach(() => {
      connections = 0;
    });
    const connect = () => `echo hello > /dev/tcp/127.0.0.1/${port} && echo CONNECTED`;

    it('cannot reach a host listener when the network is off', async () => {
      const result = await bash(connect());
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(result.stdout).not.toContain('CONNECTED');
      expect(result.stderr).toContain('Connection refused');
      expect(connections).toBe(0);
    });

    it('reaches it when allowNetwork is true (control)', async () => {
      const result = await bash(connect(), { allowNetwork: true });
      await waitFor(() => connections > 0, 2000);
      expect(result.stdout).toContain('CONNECTED');
      expect(connections).toBe(1);
    });
  });

  describe('processes', () => {
    it('sees only its own processes in /proc', async () => {
      const result = await bash(
        `ls /proc | grep -E '^[0-9]+$'; kill -0 ${process.pid} 2>/dev/null && echo HOST_VISIBLE`,
      );
      const pids = result.stdout.trim().split('\n').map(Number);
      expect(result.stdout).not.toContain('HOST_VISIBLE');
      expect(pids).not.toContain(process.pid);
      expect(pids.length).toBeGreaterThan(0);
      expect(pids.length).toBeLessThanOrEqual(5); // bwrap's init, bash, ls, grep
      expect(Math.max(...pids)).toBeLessThan(10);
    });

    it('dies within 1 s of its parent being killed', async () => {
      const needle = `30.${Date.now()}${process.pid}`; // a unique sleep length marks our processes
      const heartbeat = join(workdir, 'heartbeat');
      const script = join(base, 'parent.mjs');
      const index = new URL('./index.ts', import.meta.url).href;
      writeFileSync(
        script,
        `import { createBwrapSandbox, runSandboxed } from ${JSON.stringify(index)};\n` +
          `await runSandboxed(createBwrapSandbox(), ['bash', '-c', ${JSON.stringify(
            `(while :; do date +%s%N > heartbeat; sleep 0.05; done) & sleep ${needle}`,
          )}], { workdir: ${JSON.stringify(workdir)}, timeoutMs: 60_000 });\n`,
      );
      const parent: ChildProcess = spawn(process.execPath, [script], {
        stdio: 'ignore',
      });
      try {
        await waitFor(() => existsSync(heartbeat) && processesMatching(needle).length >= 2, 10_000);
        const beat = statSync(heartbeat).mtimeMs;
        await waitFor(() => statSync(heartbeat).mtimeMs !== beat, 2000); // it is alive
        parent.kill('SIGKILL');
        const elapsed = await waitFor(() => processesMatching(needle).length === 0, 1000, 10);
        expect(elapsed).toBeLessThan(1000);
        const last = readFileSync(heartbeat, 'utf8');
        await new Promise((resolve) => setTimeout(resolve, 200));
        expect(readFileSync(heartbeat, 'utf8')).toBe(last);
      } finally {
        parent.kill('SIGKILL');
      }
    });
  });

  describe('limits', () => {
    it('caps stdout and stderr', async () => {
      const result = await bash('head -c 100000 /dev/zero | tr "\\0" b; head -c 5000 /dev/zero >&2', {
        stdoutLimitBytes: 1000,
        stderrLimitBytes: 10,
      });
      expect(result.stdout).toBe('b'.repeat(1000));
      expect(result).toMatchObject({
        exitCode: 0,
        stdoutTruncated: true,
        stderrTruncated: true,
      });
      expect(result.stderr).toHaveLength(10);
    });

    it('kills every sandboxed process on timeout', async () => {
      const needle = `31.${Date.now()}${process.pid}`;
      const result = await bash(`sleep ${needle} & sleep ${needle}`, {
        timeoutMs: 300,
      });
      expect(result.timedOut).toBe(true);
      expect(result.durationMs).toBeLessThan(2000);
      await waitFor(() => processesMatching(needle).length === 0, 500);
    });

    it('kills every sandboxed process on abort and rejects with aborted', async () => {
      const needle = `32.${Date.now()}${process.pid}`;
      const controller = new AbortController();
      const run = bash(`sleep ${needle} & sleep ${needle}`, {
        signal: controller.signal,
      });
      await waitFor(() => processesMatching(needle).length >= 2, 3000);
      controller.abort();
      await expect(run).rejects.toSatisfy((error) => AgencyError.hasCode(error, 'aborted'));
      await waitFor(() => processesMatching(needle).length === 0, 500);
    });

    it('leaves nothing behind when aborted while bwrap is still setting up', async () => {
      const survivors: number[] = [];
      for (let attempt = 0; attempt < 30; attempt++) {
        const needle = `33.${Date.now()}${attempt}`;
        const controller = new AbortController();
        const run = bash(`sleep ${needle}`, { signal: controller.signal });
        setTimeout(() => controller.abort(), attempt % 15);
        await run.catch(() => {});
        await waitFor(() => processesMatching(needle).length === 0, 300).catch(() => {
          survivors.push(...processesMatching(needle));
        });
      }
      for (const pid of survivors) process.kill(pid, 'SIGKILL');
      expect(survivors).toEqual([]);
    });
  });

  describe('credentials', () => {
    it('mounts files read-only for one run and deletes them after', async () => {
      const staging = join(base, 'staging');
      mkdirSync(staging);
      const secret = `tok-${token()}`;
      const files = [{ path: '/run/secrets/token', content: secret }];
      const result = await runSandboxed(
        sandbox,
        ['bash', '-c', 'cat /run/secrets/token; stat -c %a /run/secrets/token; echo x > /run/secrets/token'],
        { workdir, files, timeoutMs: 5000 },
        { tmpDir: staging },
      );
      expect(result.stdout).toBe(`${secret}400\n`);
      expect(result.stderr).toContain('Read-only file system');
      expect(readdirSync(staging)).toEqual([]);
      const later = await bash('cat /run/secrets/token');
      expect(later.stdout).toBe('');
      expect(later.stderr).toContain('No such file or directory');
    });
  });
});
