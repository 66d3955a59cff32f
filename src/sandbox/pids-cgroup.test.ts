import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createPidsCgroup, findPidsCgroupParent } from './pids-cgroup.ts';

let base: string;
beforeEach(() => {
  base = mkdtempSync(join(tmpdir(), 'agency-cgroup-'));
});
afterEach(() => rmSync(base, { recursive: true, force: true }));

const files = (cgroup: string, mountinfo: string) => (path: string) =>
  path === '/proc/self/cgroup' ? cgroup : path === '/proc/self/mountinfo' ? mountinfo : '';

describe('findPidsCgroupParent', () => {
  it("finds this process's cgroup in the v1 pids hierarchy", () => {
    mkdirSync(join(base, 'pids', 'user.slice', 'agency'), { recursive: true });
    const parent = findPidsCgroupParent(
      files(
        '9:name=systemd:/\n8:pids:/user.slice/agency\n0::/\n',
        `22 1 0:20 / /proc rw - proc proc rw\n39 31 0:36 / ${base}/pids rw,relatime - cgroup cgroup rw,pids\n`,
      ),
    );
    expect(parent).toBe(join(base, 'pids', 'user.slice', 'agency'));
  });

  it('maps a path through a mount of part of the hierarchy, as in a container', () => {
    mkdirSync(join(base, 'pids', 'inner'), { recursive: true });
    const parent = findPidsCgroupParent(
      files('5:pids:/docker/abc/inner\n', `39 31 0:36 /docker/abc ${base}/pids rw - cgroup cgroup rw,pids\n`),
    );
    expect(parent).toBe(join(base, 'pids', 'inner'));
  });

  it('finds nothing on a cgroup v2 only host, or when the directory is missing', () => {
    expect(
      findPidsCgroupParent(files('0::/user.slice\n', '41 31 0:38 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n')),
    ).toBe(undefined);
    const missing = files('8:pids:/gone\n', `39 31 0:36 / ${base}/pids rw - cgroup cgroup rw,pids\n`);
    expect(existsSync(join(base, 'pids', 'gone'))).toBe(false);
    expect(findPidsCgroupParent(missing)).toBe(undefined);
  });
});

describe('createPidsCgroup', () => {
  it("sets pids.max for the sandbox plus bwrap's monitor, and removes cgroups left by dead agency processes", async () => {
    const dead = spawnSync('true').pid;
    mkdirSync(join(base, `agency-sandbox-${dead}-0badf00d`));
    mkdirSync(join(base, `agency-sandbox-${process.pid}-0000beef`));
    const cgroup = await createPidsCgroup(base, 40); // a plain directory stands in for the cgroup parent
    expect(readFileSync(join(cgroup.path, 'pids.max'), 'utf8')).toBe('41');
    expect(readdirSync(base).sort()).toEqual(
      [`agency-sandbox-${process.pid}-0000beef`, cgroup.path.slice(base.length + 1)].sort(),
    );
  });
});
