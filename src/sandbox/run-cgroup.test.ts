import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type CgroupHost, createRunCgroup, findCgroupParents } from './run-cgroup.ts';

let base: string;
beforeEach(() => {
  base = mkdtempSync(join(tmpdir(), 'agency-cgroup-'));
});
afterEach(() => rmSync(base, { recursive: true, force: true }));

// A host made of file contents; every path under `base` that exists is writable unless listed as read-only.
function host(files: Record<string, string>, readOnly: string[] = []): CgroupHost {
  return {
    read: (path) => files[path] ?? (path.startsWith(base) && existsSync(path) ? readFileSync(path, 'utf8') : ''),
    writable: (path) => existsSync(path) && !readOnly.includes(path),
  };
}

const v1Mounts = (b: string) =>
  `22 1 0:20 / /proc rw - proc proc rw\n` +
  `39 31 0:36 / ${b}/pids rw,relatime - cgroup cgroup rw,pids\n` +
  `35 31 0:32 / ${b}/memory rw,relatime - cgroup cgroup rw,memory\n` +
  `41 31 0:38 / ${b}/unified rw,relatime - cgroup2 cgroup2 rw\n`;

describe('findCgroupParents on cgroup v1 and hybrid hosts', () => {
  it("finds this process's cgroups in the pids and memory hierarchies", () => {
    mkdirSync(join(base, 'pids', 'user.slice', 'agency'), { recursive: true });
    mkdirSync(join(base, 'memory', 'jobs', 'j1'), { recursive: true });
    const parents = findCgroupParents(
      host({
        '/proc/self/cgroup': '9:name=systemd:/\n8:pids:/user.slice/agency\n4:memory:/jobs/j1\n0::/\n',
        '/proc/self/mountinfo': v1Mounts(base),
      }),
    );
    expect(parents).toEqual([
      { path: join(base, 'pids', 'user.slice', 'agency'), version: 1, controllers: ['pids'] },
      { path: join(base, 'memory', 'jobs', 'j1'), version: 1, controllers: ['memory'] },
    ]);
  });

  it('maps a path through a mount of part of the hierarchy, as in a container', () => {
    mkdirSync(join(base, 'pids', 'inner'), { recursive: true });
    const parents = findCgroupParents(
      host({
        '/proc/self/cgroup': '5:pids:/docker/abc/inner\n',
        '/proc/self/mountinfo': `39 31 0:36 /docker/abc ${base}/pids rw - cgroup cgroup rw,pids\n`,
      }),
    );
    expect(parents).toEqual([{ path: join(base, 'pids', 'inner'), version: 1, controllers: ['pids'] }]);
  });

  it('finds nothing where the hierarchies are read-only or the directories missing', () => {
    mkdirSync(join(base, 'pids'), { recursive: true });
    mkdirSync(join(base, 'memory'), { recursive: true });
    const files = { '/proc/self/cgroup': '8:pids:/\n4:memory:/gone\n0::/\n', '/proc/self/mountinfo': v1Mounts(base) };
    expect(findCgroupParents(host(files, [join(base, 'pids')]))).toEqual([]);
  });
});

describe('findCgroupParents on cgroup v2', () => {
  const v2 = (own: string, subtree: string, extra: Record<string, string> = {}) =>
    host({
      '/proc/self/cgroup': `0::${own}\n`,
      '/proc/self/mountinfo': `41 31 0:38 / ${base} rw,nosuid - cgroup2 cgroup2 rw\n`,
      [join(base, 'svc', 'cgroup.subtree_control')]: subtree,
      ...extra,
    });
  beforeEach(() => mkdirSync(join(base, 'svc', 'supervisor'), { recursive: true }));

  it("uses the parent of agency's leaf when it enables the controllers, as a delegated subtree does", () => {
    expect(findCgroupParents(v2('/svc/supervisor', 'cpu memory pids\n'))).toEqual([
      { path: join(base, 'svc'), version: 2, controllers: ['pids', 'memory'] },
    ]);
    expect(findCgroupParents(v2('/svc/supervisor', 'pids\n'))).toEqual([
      { path: join(base, 'svc'), version: 2, controllers: ['pids'] },
    ]);
  });

  it("refuses a parent without the controllers, agency's own cgroup at the root, or one with limits of its own", () => {
    expect(findCgroupParents(v2('/svc/supervisor', 'cpu io\n'))).toEqual([]);
    expect(findCgroupParents(v2('/', 'memory pids\n'))).toEqual([]);
    // A sibling of agency's cgroup would escape its memory.max: agency's limits stay agency's.
    const limited = v2('/svc/supervisor', 'memory pids', {
      [join(base, 'svc', 'supervisor', 'memory.max')]: '2147483648\n',
    });
    expect(findCgroupParents(limited)).toEqual([]);
    const unlimited = v2('/svc/supervisor', 'memory pids', {
      [join(base, 'svc', 'supervisor', 'memory.max')]: 'max\n',
      [join(base, 'svc', 'supervisor', 'pids.max')]: 'max\n',
    });
    expect(findCgroupParents(unlimited)).toHaveLength(1);
  });

  it('finds nothing when the hierarchy is read-only, as in a container', () => {
    const files = {
      '/proc/self/cgroup': '0::/svc/supervisor\n',
      '/proc/self/mountinfo': `41 31 0:38 / ${base} ro,nosuid - cgroup2 cgroup2 rw\n`,
      [join(base, 'svc', 'cgroup.subtree_control')]: 'memory pids',
    };
    expect(findCgroupParents(host(files, [join(base, 'svc')]))).toEqual([]);
  });

  it('fills in from v2 only the controllers v1 did not give', () => {
    mkdirSync(join(base, 'pids'), { recursive: true });
    const files = {
      '/proc/self/cgroup': '8:pids:/\n0::/svc/supervisor\n',
      '/proc/self/mountinfo':
        `39 31 0:36 / ${base}/pids rw - cgroup cgroup rw,pids\n` + `41 31 0:38 / ${base} rw - cgroup2 cgroup2 rw\n`,
      [join(base, 'svc', 'cgroup.subtree_control')]: 'memory pids',
    };
    expect(findCgroupParents(host(files))).toEqual([
      { path: join(base, 'pids'), version: 1, controllers: ['pids'] },
      { path: join(base, 'svc'), version: 2, controllers: ['memory'] },
    ]);
  });
});

describe('createRunCgroup', () => {
  // Plain directories stand in for cgroup parents: the limits land in files of the same names.
  it("sets pids.max for the sandbox plus bwrap's monitor, and the memory limit of each version", async () => {
    for (const dir of ['pids', 'memory', 'v2']) mkdirSync(join(base, dir));
    const cgroup = await createRunCgroup(
      [
        { path: join(base, 'pids'), version: 1, controllers: ['pids'] },
        { path: join(base, 'memory'), version: 1, controllers: ['memory'] },
        { path: join(base, 'v2'), version: 2, controllers: ['pids', 'memory'] },
      ],
      { processes: 40, memoryBytes: 1 << 30 },
    );
    const [name] = readdirSync(join(base, 'v2'));
    expect(cgroup.controllers).toEqual(['pids', 'memory', 'pids', 'memory']);
    expect(cgroup.problems).toEqual([]);
    expect(readFileSync(join(base, 'pids', name ?? '', 'pids.max'), 'utf8')).toBe('41');
    expect(readFileSync(join(base, 'memory', name ?? '', 'memory.limit_in_bytes'), 'utf8')).toBe(String(1 << 30));
    expect(readFileSync(join(base, 'v2', name ?? '', 'pids.max'), 'utf8')).toBe('41');
    expect(readFileSync(join(base, 'v2', name ?? '', 'memory.max'), 'utf8')).toBe(String(1 << 30));
  });

  it('reads the OOM kills of v1 and v2 memory cgroups', async () => {
    for (const dir of ['memory', 'v2']) mkdirSync(join(base, dir));
    const cgroup = await createRunCgroup(
      [
        { path: join(base, 'memory'), version: 1, controllers: ['memory'] },
        { path: join(base, 'v2'), version: 2, controllers: ['memory'] },
      ],
      { processes: 4, memoryBytes: 1 << 20 },
    );
    expect(await cgroup.oomKills()).toBe(0);
    const [name] = readdirSync(join(base, 'v2'));
    writeFileSync(
      join(base, 'memory', name ?? '', 'memory.oom_control'),
      'oom_kill_disable 0\nunder_oom 0\noom_kill 2\n',
    );
    writeFileSync(join(base, 'v2', name ?? '', 'memory.events'), 'low 0\nhigh 0\nmax 9\noom 1\noom_kill 1\n');
    expect(await cgroup.oomKills()).toBe(3);
  });

  it('skips a parent it cannot use, saying why, and removes cgroups left by dead agency processes', async () => {
    mkdirSync(join(base, 'pids'));
    const dead = spawnSync('true').pid;
    mkdirSync(join(base, 'pids', `agency-sandbox-${dead}-0badf00d`));
    mkdirSync(join(base, 'pids', `agency-sandbox-${process.pid}-0000beef`));
    const cgroup = await createRunCgroup(
      [
        { path: join(base, 'pids'), version: 1, controllers: ['pids'] },
        { path: join(base, 'missing'), version: 1, controllers: ['memory'] },
      ],
      { processes: 4, memoryBytes: 1 << 20 },
    );
    expect(cgroup.controllers).toEqual(['pids']);
    expect(cgroup.problems).toEqual([expect.stringMatching(/missing: ENOENT/)]);
    expect(readdirSync(join(base, 'pids')).filter((name) => name.includes('0badf00d'))).toEqual([]);
    expect(readdirSync(join(base, 'pids'))).toContain(`agency-sandbox-${process.pid}-0000beef`);
  });
});
