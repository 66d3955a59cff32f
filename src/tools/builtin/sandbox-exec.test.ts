import { existsSync, mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { checkSandbox, createBwrapSandbox } from '../../sandbox/index.ts';
import { findCgroupParents } from '../../sandbox/run-cgroup.ts';
import { createToolRegistry } from '../tool-registry.ts';
import { createSandboxExecTool, type SandboxExecOutput, type SandboxExecToolOptions } from './sandbox-exec.ts';

// Real bubblewrap; skipped with the reason where it cannot run (the sandbox's own tests cover failing closed).
const bwrap = createBwrapSandbox();
const status = await checkSandbox(bwrap);
const skipReason = status.ok ? '' : ` (skipped: ${status.error.message})`;
const memoryCgroup = findCgroupParents().some((parent) => parent.controllers.includes('memory'));

let base: string;
let workdir: string;
let outside: string;

beforeEach(() => {
  base = realpathSync(mkdtempSync(join(tmpdir(), 'agency-exec-')));
  workdir = join(base, 'work');
  outside = join(base, 'outside');
  mkdirSync(workdir);
  mkdirSync(outside);
  writeFileSync(join(outside, 'secret.txt'), 'CANARY');
});
afterEach(() => rmSync(base, { recursive: true, force: true }));

function run(input: unknown, options: Partial<SandboxExecToolOptions> = {}) {
  const tool = createSandboxExecTool({ sandbox: bwrap, workdir, timeoutMs: 10_000, ...options });
  return createToolRegistry([tool]).run({ toolCallId: 'c1', toolName: 'sandbox_exec', input });
}

describe.skipIf(!status.ok)(`sandbox_exec under bwrap${skipReason}`, () => {
  it('runs an argv in the workdir and returns exit code and output', async () => {
    const outcome = await run({ command: ['sh', '-c', 'pwd; echo oops >&2; exit 3'] });
    expect(outcome.output).toMatchObject({
      exit_code: 3,
      stdout: `${workdir}\n`,
      stderr: 'oops\n',
      timed_out: false,
      truncated: false,
    });
  });

  it('never involves a shell for an argv: metacharacters are plain arguments', async () => {
    const outcome = await run({ command: ['echo', '$HOME;', 'rm', '-rf', '/', '`id`'] });
    expect((outcome.output as SandboxExecOutput).stdout).toBe('$HOME; rm -rf / `id`\n');
  });

  it('keeps writes inside the workdir: writes outside never reach the host', async () => {
    const script = [
      `echo pwned > ${join(outside, 'secret.txt')} 2>/dev/null || echo refused-outside`,
      // The workdir's parent exists inside the sandbox only as a throwaway mount point on a private tmpfs.
      `echo pwned > ${join(base, 'escaped.txt')} 2>/dev/null; echo parent-done`,
      'echo pwned > /tmp/agency-exec-escape.txt && echo tmp-is-private',
      'echo ok > inside.txt',
    ].join('; ');
    const outcome = await run({ command: ['sh', '-c', script] });
    expect((outcome.output as SandboxExecOutput).stdout).toMatch(/refused-outside\nparent-done\ntmp-is-private/);
    expect(readdirSync(base).sort()).toEqual(['outside', 'work']);
    expect(readdirSync(outside)).toEqual(['secret.txt']);
    expect(existsSync('/tmp/agency-exec-escape.txt')).toBe(false);
    expect(readdirSync(workdir)).toEqual(['inside.txt']);
  });

  it('ignores a cwd the model sends: the harness chose the workdir', async () => {
    const outcome = await run({ command: ['pwd'], cwd: '/' });
    expect((outcome.output as SandboxExecOutput).stdout).toBe(`${workdir}\n`);
  });

  it('times out, kills the command and reports it as a result', async () => {
    const outcome = await run({ command: ['sleep', '5'], timeout_ms: 300 });
    expect(outcome.ok).toBe(true);
    expect(outcome.output).toMatchObject({ timed_out: true, exit_code: null });
    const tooLong = await run({ command: ['true'], timeout_ms: 60_000 }, { maxTimeoutMs: 10_000 });
    expect(tooLong.error?.code).toBe('tool_invalid_input');
  });

  it('caps stdout and says it was truncated; passes stdin', async () => {
    const outcome = await run({ command: ['head', '-c', '5000', '/dev/zero'] }, { stdoutLimitBytes: 100 });
    expect(outcome.output).toMatchObject({ truncated: true });
    expect((outcome.output as SandboxExecOutput).stdout).toHaveLength(100);
    const echoed = await run({ command: ['cat'], stdin: 'from stdin' });
    expect((echoed.output as SandboxExecOutput).stdout).toBe('from stdin');
  });

  it('tells the model what it left that the host must not get, and applies the configured limits', async () => {
    const script =
      `mkdir sub; perl -MIO::Socket::UNIX -e 'IO::Socket::UNIX->new(Local => $_, Listen => 1) for "sock", "sub/s"'; ` +
      'head -c 3M /dev/zero > big; stat -c %s big';
    const outcome = await run({ command: ['sh', '-c', script] }, { limits: { fileSizeBytes: 1 << 20 } });
    expect(outcome.output).toMatchObject({
      exit_code: 0,
      stdout: `${1 << 20}\n`,
      quarantined: expect.arrayContaining([
        { path: 'sock', what: 'socket', action: 'removed' },
        { path: 'sub/s', what: 'socket', action: 'removed' },
      ]),
    });
    expect((outcome.output as SandboxExecOutput).quarantined).toHaveLength(2);
    expect(JSON.stringify(outcome.output)).not.toContain(workdir); // no host path for the model
    expect(readdirSync(workdir).sort()).toEqual(['big', 'sub']);
    const clean = await run({ command: ['true'] });
    expect(clean.output).not.toHaveProperty('quarantined');
  });

  it.skipIf(!memoryCgroup)('tells the model when the memory limit of the whole sandbox ended a process', async () => {
    const hogs = `for i in 1 2 3; do perl -e 'vec($x, (48<<20)-1, 8) = 1; sleep 1' & done; wait`;
    const limits = { memoryBytes: 512 << 20, totalMemoryBytes: 64 << 20 };
    const outcome = await run({ command: ['sh', '-c', hogs] }, { limits });
    expect((outcome.output as SandboxExecOutput).limits_reached).toEqual([
      `memory: the sandbox's processes together reached totalMemoryBytes (${64 << 20} bytes), and the kernel ended at least one of them`,
    ]);
    expect(outcome.output).not.toHaveProperty('warnings');
  });

  it('stops a command that writes more than the disk limit, and says why', async () => {
    const fill = 'for i in $(seq 1 100); do head -c 1M /dev/zero > f$i; done; echo DONE';
    const outcome = await run({ command: ['sh', '-c', fill] }, { limits: { diskBytes: 8 << 20 } });
    expect(outcome.output).toMatchObject({
      stdout: '',
      limits_reached: [
        `disk: the command added more than diskBytes (${8 << 20} bytes) to its writable folders and was stopped; ` +
          'delete what it does not need, or write less',
      ],
    });
    expect(readdirSync(workdir).length).toBeLessThan(100);
  });

  it('takes a command line only when the harness configures a shell', async () => {
    const argvOnly = await run({ command: 'echo hi | tr a-z A-Z' });
    expect(argvOnly.error?.code).toBe('tool_invalid_input');
    const shelled = await run({ command: 'echo hi | tr a-z A-Z' }, { shell: ['/bin/sh', '-c'] });
    expect((shelled.output as SandboxExecOutput).stdout).toBe('HI\n');
  });
});

describe('sandbox_exec configuration', () => {
  it('declares exec effects and is not idempotent', () => {
    const tool = createSandboxExecTool({ sandbox: bwrap, workdir: tmpdir() });
    expect([tool.effects, tool.idempotent]).toEqual(['exec', false]);
  });

  it('fails closed when bwrap is missing: nothing runs', async () => {
    const missing = createBwrapSandbox({ bwrapPath: '/nonexistent/bwrap' });
    const marker = join(workdir, 'ran.txt');
    const outcome = await run({ command: ['touch', marker] }, { sandbox: missing });
    expect(outcome.error?.code).toBe('sandbox_unavailable');
    expect(existsSync(marker)).toBe(false);
  });

  it("runs unsandboxed only with sandbox: 'none', and warns on every call", async () => {
    const warnings: string[] = [];
    const logger = { warn: (message: string) => warnings.push(message) };
    const outcome = await run({ command: ['pwd'] }, { sandbox: 'none', logger });
    expect((outcome.output as SandboxExecOutput).stdout).toBe(`${workdir}\n`);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/UNSANDBOXED/);
  });
});
