import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createBwrapSandbox } from './bwrap-sandbox.ts';
import { checkSandbox } from './check-sandbox.ts';

// agency as root where it cannot write a cgroup: cgroup v2 without a delegated subtree, or a container's read-only
// /sys/fs/cgroup (Docker's default). Real root is exempt from RLIMIT_NPROC, so nothing caps the sandbox's processes
// there, and nothing caps its total memory. The run must say so in its warnings, never continue silently. A child
// node process runs the sandbox in a mount namespace of its own in which every cgroup mount is read-only.
const status = await checkSandbox(createBwrapSandbox());
const unshare = spawnSync('unshare', ['-m', 'true']).status === 0;
const reason = !status.ok
  ? status.error.message
  : process.getuid?.() !== 0
    ? 'needs root, the case it is about'
    : !unshare
      ? 'needs unshare -m to make the cgroup mounts read-only'
      : '';
if (reason) console.warn(`no-cgroup battery skipped: ${reason}`);

let base: string;
beforeEach(() => {
  base = realpathSync(mkdtempSync(join(tmpdir(), 'agency-no-cgroup-')));
  mkdirSync(join(base, 'work'));
});
afterEach(() => rmSync(base, { recursive: true, force: true }));

// Every cgroup mount read-only in this mount namespace, then the child; exit 97 when a remount fails.
const READ_ONLY_CGROUPS =
  `for m in $(grep -E ' - cgroup2? ' /proc/self/mountinfo | cut -d' ' -f5); do ` +
  'mount -o remount,bind,ro "$m" || exit 97; done; exec "$0" "$@"';

// Runs in the child: a bounded fork tree with `processes: 8` through runSandboxed, and `sandbox_exec` once.
const CHILD = (sandboxIndex: string, cgroups: string, execTool: string, needle: string) => `
import { createBwrapSandbox, runSandboxed } from ${JSON.stringify(sandboxIndex)};
import { findCgroupParents } from ${JSON.stringify(cgroups)};
import { createSandboxExecTool } from ${JSON.stringify(execTool)};
const workdir = process.argv[2];
const sandbox = createBwrapSandbox();
const out = { parents: findCgroupParents() };
const tree = await runSandboxed(
  sandbox,
  ['bash', '-c', ': ${needle}; b() { if [ $1 -gt 0 ]; then b $(($1-1)) & b $(($1-1)) & fi; sleep 2; }; b 4; wait'],
  { workdir, limits: { processes: 8 }, timeoutMs: 10_000 },
);
out.warnings = tree.warnings;
out.treeMs = tree.durationMs;
const tool = createSandboxExecTool({ workdir, sandbox });
out.tool = await tool.execute({ command: ['true'] }, { signal: new AbortController().signal });
console.log(JSON.stringify(out));
`;

function countMatching(needle: string): number {
  let count = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(needle)) count++;
    } catch {
      // exited while we looked
    }
  }
  return count;
}

describe.skipIf(reason !== '')(`as root without a writable cgroup${reason ? ` (skipped: ${reason})` : ''}`, () => {
  it('warns in the result and in sandbox_exec that processes and total memory are not capped', async () => {
    const needle = `no-cgroup-tree-${process.pid}-${Date.now()}`;
    const script = join(base, 'child.mjs');
    const here = (path: string) => new URL(path, import.meta.url).href;
    writeFileSync(
      script,
      CHILD(here('./index.ts'), here('./run-cgroup.ts'), here('../tools/builtin/sandbox-exec.ts'), needle),
    );
    let peak = 0;
    const sampler = setInterval(() => (peak = Math.max(peak, countMatching(needle))), 20);
    const child = spawn(
      'unshare',
      ['-m', '--propagation', 'private', 'sh', '-c', READ_ONLY_CGROUPS, process.execPath, script, join(base, 'work')],
      {
        cwd: base,
        env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin', HOME: base },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise((resolve) => child.once('close', resolve));
    clearInterval(sampler);
    expect(code, stderr).toBe(0);

    const out = JSON.parse(stdout) as { parents: unknown[]; warnings: string[]; tool: { warnings?: string[] } };
    expect(out.parents).toEqual([]);
    const expected = [
      expect.stringMatching(/^limits\.processes \(8\) is not enforced: agency runs as root, .*no pids cgroup/),
      expect.stringMatching(/^limits\.totalMemoryBytes \(\d+\) is not enforced: no memory cgroup could be made/),
    ];
    expect(out.warnings).toEqual(expected);
    expect(out.tool.warnings).toEqual([
      expect.stringMatching(/^limits\.processes \(1024\) is not enforced/),
      expect.stringMatching(/^limits\.totalMemoryBytes/),
    ]);
    // What the warning says is so: the tree outgrew `processes`, which nothing enforced.
    expect(peak).toBeGreaterThan(8 + 1);
  });
});
