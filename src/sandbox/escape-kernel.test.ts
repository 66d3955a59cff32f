import { randomBytes } from 'node:crypto';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createBwrapSandbox } from './bwrap-sandbox.ts';
import { checkSandbox } from './check-sandbox.ts';
import { type RunSandboxedOptions, runSandboxed } from './run-sandboxed.ts';

// The escape battery, kernel part: what a sandboxed command can reach in the kernel it shares with the host. agency
// often runs as root, and then the command's kernel uid is root's; these attacks matter most there. Every write
// that lands on the host is undone in a finally.
const sandbox = createBwrapSandbox();
const status = await checkSandbox(sandbox);
const skipReason = status.ok ? '' : ` (skipped: ${status.error.message})`;
if (!status.ok) console.warn(`sandbox kernel battery skipped: ${status.error.message}`);

let base: string;
let workdir: string;
let outside: string;
beforeEach(() => {
  base = realpathSync(mkdtempSync(join(tmpdir(), 'agency-escape-kernel-')));
  workdir = join(base, 'work');
  outside = join(base, 'outside');
  for (const dir of [workdir, outside]) mkdirSync(dir);
});
afterEach(() => rmSync(base, { recursive: true, force: true }));

function bash(script: string, options: Partial<RunSandboxedOptions> = {}) {
  return runSandboxed(sandbox, ['bash', '-c', script], { workdir, timeoutMs: 10_000, ...options });
}

/** Reads each sysctl now, and restores any the test changed. */
function snapshotSysctls(paths: readonly string[]) {
  const before = new Map(paths.map((path) => [path, readFileSync(path, 'utf8')]));
  return {
    before,
    changed: () => paths.filter((path) => readFileSync(path, 'utf8') !== before.get(path)),
    restore: () => {
      for (const [path, value] of before) {
        if (readFileSync(path, 'utf8') !== value) writeFileSync(path, value);
      }
    },
  };
}

describe.skipIf(!status.ok)(`kernel escape battery${skipReason}`, () => {
  it('writes none of the kernel knobs under /proc/sys', async () => {
    const knobs = ['vm/swappiness', 'vm/overcommit_ratio', 'fs/lease-break-time', 'kernel/printk_ratelimit'];
    const sysctls = snapshotSysctls(knobs.map((knob) => `/proc/sys/${knob}`));
    try {
      const writes = [...sysctls.before].map(([path, value]) => `echo ${Number(value) + 1} > ${path}`);
      const result = await bash(`${writes.join('; ')}; echo done`);
      expect(result.stdout).toBe('done\n');
      expect(sysctls.changed()).toEqual([]);
      expect(result.stderr.match(/Read-only file system|Permission denied/g)).toHaveLength(knobs.length);
    } finally {
      sysctls.restore();
    }
  });

  it('writes no kernel knob when the sandbox is created with procMasks: []', async () => {
    // The covers are a floor the options add to: an empty list must not give the knobs back.
    const bare = createBwrapSandbox({ procMasks: [] });
    const sysctls = snapshotSysctls(['/proc/sys/vm/swappiness', '/proc/sys/kernel/core_uses_pid']);
    try {
      const writes = [...sysctls.before].map(([path, value]) => `echo ${Number(value) === 0 ? 1 : 0} > ${path}`);
      const result = await runSandboxed(bare, ['bash', '-c', `${writes.join('; ')}; echo done`], {
        workdir,
        timeoutMs: 10_000,
      });
      expect(result.stdout).toBe('done\n');
      expect(sysctls.changed()).toEqual([]);
      expect(result.stderr.match(/Read-only file system|Permission denied/g)).toHaveLength(2);
    } finally {
      sysctls.restore();
    }
  });

  it.skipIf(!existsSync('/proc/sysrq-trigger'))('cannot open /proc/sysrq-trigger for writing', async () => {
    // Opening writes nothing; a key written here (b: reboot) would act on the host.
    const result = await bash('exec 3>/proc/sysrq-trigger && echo OPENED');
    expect(result.stdout).not.toContain('OPENED');
  });

  it('cannot make the host kernel run its program as root through kernel.core_pattern', async () => {
    const helper = join(workdir, 'helper.sh');
    const proof = join(outside, `ran-as-host-root-${randomBytes(4).toString('hex')}`);
    writeFileSync(helper, `#!/bin/sh\nid > ${proof}\n`);
    chmodSync(helper, 0o755);
    const sysctls = snapshotSysctls(['/proc/sys/kernel/core_pattern']);
    const original = sysctls.before.get('/proc/sys/kernel/core_pattern') ?? 'core\n';
    try {
      // Set the pattern, crash, and put the pattern back at once, from inside, to keep the host's window short.
      const result = await bash(
        `echo '|${helper}' > /proc/sys/kernel/core_pattern && { sh -c 'kill -SEGV $$'; ` +
          `printf %s ${JSON.stringify(original)} > /proc/sys/kernel/core_pattern; echo CRASHED; }; echo done`,
      );
      await new Promise((resolve) => setTimeout(resolve, 500)); // the kernel runs the helper asynchronously
      expect(existsSync(proof) && readFileSync(proof, 'utf8')).toBe(false);
      expect(sysctls.changed()).toEqual([]);
      expect(result.stdout).toBe('done\n');
    } finally {
      sysctls.restore();
    }
  });

  it('reads nothing from masked /proc files and sees no hardware directories', async () => {
    const masked = ['keys', 'timer_list', 'kpageflags', 'kpagecount', 'slabinfo', 'vmallocinfo', 'pagetypeinfo'];
    const present = masked.filter((name) => existsSync(`/proc/${name}`));
    const reads = present.map((name) => `echo "${name} $(head -c 4096 /proc/${name} 2>/dev/null | wc -c)"`);
    const result = await bash(`${reads.join('; ')}; ls -A /proc/acpi 2>/dev/null | wc -l`);
    const lines = result.stdout.trim().split('\n');
    expect(lines.slice(0, -1)).toEqual(present.map((name) => `${name} 0`));
    expect(lines.at(-1)).toBe('0');
  });

  it('runs as nobody, without capabilities or new privileges, under a seccomp filter', async () => {
    const result = await bash('grep -E "^(Uid|Gid|CapEff|CapBnd|NoNewPrivs|Seccomp):" /proc/self/status');
    const status = Object.fromEntries(
      result.stdout
        .trim()
        .split('\n')
        .map((line) => line.split(/:\s+/)),
    );
    expect(status).toEqual({
      Uid: '65534\t65534\t65534\t65534',
      Gid: '65534\t65534\t65534\t65534',
      CapEff: '0000000000000000',
      CapBnd: '0000000000000000',
      NoNewPrivs: '1',
      Seccomp: '2',
    });
  });

  it('cannot create a nested user namespace', async () => {
    const result = await bash('unshare --user id -u && echo NESTED; echo done');
    expect(result.stdout).toBe('done\n');
  });

  // Raw syscalls through perl, numbered for x86_64; on aarch64 only the generator's own tests and the calls made
  // by ordinary tools (chmod, mkfifo, unshare) check the filter.
  it.skipIf(process.arch !== 'x64')('gets EPERM or ENOSYS from the kernel interfaces the filter denies', async () => {
    const calls: Record<string, [number, string]> = {
      io_uring_setup: [425, 'EPERM'],
      keyctl: [250, 'EPERM'],
      bpf: [321, 'EPERM'],
      perf_event_open: [298, 'EPERM'],
      userfaultfd: [323, 'EPERM'],
      mknodat: [259, 'EPERM'],
      ptrace: [101, 'EPERM'],
      clone3: [435, 'ENOSYS'],
      openat2: [437, 'ENOSYS'],
    };
    const perl = Object.entries(calls)
      .map(([name, [nr]]) => `print "${name} ", (syscall(${nr}, 0, 0, 0, 0) == -1 ? errno() : "ok"), "\\n";`)
      .join(' ');
    const result = await runSandboxed(
      sandbox,
      ['perl', '-e', `use Errno; sub errno { $!{EPERM} ? 'EPERM' : $!{ENOSYS} ? 'ENOSYS' : "$!" } ${perl}`],
      { workdir, timeoutMs: 10_000 },
    );
    const seen = Object.fromEntries(
      result.stdout
        .trim()
        .split('\n')
        .map((line) => line.split(' ')),
    );
    expect(seen).toEqual(Object.fromEntries(Object.entries(calls).map(([name, [, errno]]) => [name, errno])));
  });
});
