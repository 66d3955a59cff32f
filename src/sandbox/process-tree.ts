import { existsSync, readdirSync, readFileSync } from 'node:fs';

/** A process, identified by its pid and its start time so a reused pid is never mistaken for it. */
export type ProcessRef = { pid: number; startTime: string };

/**
 * Every live descendant of `pid`, read from `/proc`. bwrap's inner init only arms its die-with-parent signal after
 * the sandbox is set up, so killing bwrap during setup would orphan it; killing these directly cannot miss it.
 * Returns an empty list where `/proc` cannot be read.
 */
export function descendantsOf(pid: number): ProcessRef[] {
  const children = new Map<number, ProcessRef[]>();
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return [];
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = readStat(Number(entry));
    if (stat === undefined) continue;
    const siblings = children.get(stat.ppid) ?? [];
    siblings.push({ pid: Number(entry), startTime: stat.startTime });
    children.set(stat.ppid, siblings);
  }
  const found: ProcessRef[] = [];
  const queue = [pid];
  for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
    for (const child of children.get(next) ?? []) {
      found.push(child);
      queue.push(child.pid);
    }
  }
  return found;
}

// Linux lists each thread's children in /proc/<pid>/task/<tid>/children where built with CONFIG_PROC_CHILDREN.
const CHILDREN_FILES = existsSync(`/proc/${process.pid}/task/${process.pid}/children`);

/**
 * The pids below `pid`, read from the kernel's per-thread `children` lists: a few reads instead of one per process
 * on the host, as {@link descendantsOf} needs (and falls back to where those lists are missing). A child forked
 * while the lists are read may be missed, so read again after anything that stops new forks from escaping.
 */
export function descendantPids(pid: number): number[] {
  if (!CHILDREN_FILES) return descendantsOf(pid).map((child) => child.pid);
  const found: number[] = [];
  const queue = [pid];
  for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
    const children = childrenOf(next);
    found.push(...children);
    queue.push(...children);
  }
  return found;
}

function childrenOf(pid: number): number[] {
  let tasks: string[];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return []; // it exited
  }
  return tasks.flatMap((tid) => {
    try {
      return readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8').split(' ').filter(Boolean).map(Number);
    } catch {
      return [];
    }
  });
}

/**
 * Stops `pid` with SIGSTOP and waits (up to `maxWaitMs`) until it is stopped, so it cannot fork while its
 * descendants are listed. Resume it with SIGCONT. Returns at once where `/proc` cannot be read.
 */
export async function freeze(pid: number, maxWaitMs = 100): Promise<void> {
  try {
    process.kill(pid, 'SIGSTOP');
  } catch {
    return;
  }
  const started = performance.now();
  while (performance.now() - started < maxWaitMs) {
    const state = readState(pid);
    if (state === undefined || state === 'T' || state === 'Z') return;
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
}

/** Sends `signal` to `process` if that pid still belongs to the same process. */
export function signalProcess(process_: ProcessRef, signal: NodeJS.Signals): void {
  if (readStat(process_.pid)?.startTime !== process_.startTime) return;
  try {
    process.kill(process_.pid, signal);
  } catch {
    // It exited in between.
  }
}

function readState(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat[stat.lastIndexOf(')') + 2];
  } catch {
    return undefined;
  }
}

function readStat(pid: number): { ppid: number; startTime: string } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name in parentheses may contain spaces; the fields after it do not.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const [state, ppid] = fields;
    const startTime = fields[19];
    if (state === 'Z' || ppid === undefined || startTime === undefined) return undefined;
    return { ppid: Number(ppid), startTime };
  } catch {
    return undefined;
  }
}
