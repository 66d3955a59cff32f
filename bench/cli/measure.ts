import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { median, quantile, round } from '../journal/raw-floor.ts';

/** One command line to time: a program and its arguments, run in a fresh process each time. */
export type Case = {
  id: string;
  /** How the row is labelled, e.g. `agency --help`. */
  label: string;
  file: string;
  args: string[];
  env?: Record<string, string>;
  /** What a correct run prints on stdout; a run without it (or with a non-zero exit) fails the benchmark. */
  expect?: RegExp;
};

/** A case's wall-clock times, in ms, from spawn to exit. */
export type CaseFigure = {
  id: string;
  label: string;
  runs: number;
  medianMs: number;
  p95Ms: number;
  minMs: number;
  maxMs: number;
  /**
   * CPU time (user + system) per run, the mean, where the OS reports it (Linux); unlike wall clock, it does not count
   * the time a run waited for a core on a busy machine.
   */
  cpuMs?: number;
  /** Runs that exited non-zero or printed the wrong thing: the first one's output. */
  failure?: string | undefined;
};

/**
 * Times every case `runs` times after `warmups` untimed runs. The cases take turns within each round, so drift on a
 * shared machine (another process's burst, a cache filling) falls on all of them alike rather than on one.
 */
export function measureCases(
  cases: readonly Case[],
  { runs, warmups }: { runs: number; warmups: number },
): CaseFigure[] {
  const times = new Map<string, number[]>(cases.map((item) => [item.id, []]));
  const cpu = new Map<string, number>(cases.map((item) => [item.id, 0]));
  const failures = new Map<string, string>();
  for (let pass = 0; pass < warmups + runs; pass++) {
    for (const item of cases) {
      const cpuBefore = childrenCpuMs();
      const started = performance.now();
      const result = spawnSync(item.file, item.args, {
        encoding: 'utf8',
        env: { ...process.env, ...item.env },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      const ms = performance.now() - started;
      const cpuAfter = childrenCpuMs();
      const ok = result.status === 0 && (item.expect === undefined || item.expect.test(result.stdout));
      if (!ok && !failures.has(item.id)) {
        const why = result.error?.message ?? `exit ${result.status ?? result.signal}`;
        failures.set(item.id, `${why}: ${`${result.stdout}${result.stderr}`.trim().slice(0, 400)}`);
      }
      if (pass >= warmups) {
        times.get(item.id)?.push(ms);
        if (cpuBefore !== undefined && cpuAfter !== undefined) {
          cpu.set(item.id, (cpu.get(item.id) ?? 0) + cpuAfter - cpuBefore);
        }
      }
    }
  }
  return cases.map(({ id, label }) => {
    const values = times.get(id) ?? [];
    const failure = failures.get(id);
    return {
      id,
      label,
      runs: values.length,
      medianMs: round(median(values), 1),
      p95Ms: round(quantile(values, 0.95), 1),
      minMs: round(Math.min(...values), 1),
      maxMs: round(Math.max(...values), 1),
      ...(childrenCpuMs() === undefined ? {} : { cpuMs: round((cpu.get(id) ?? 0) / Math.max(1, values.length), 1) }),
      failure,
    };
  });
}

// The CPU time of this process's waited-for children, from /proc/self/stat (cutime + cstime, in clock ticks of 10 ms).
// One run's share is read to a tick either way, an error that averages out over a case's runs. Undefined where there
// is no /proc.
function childrenCpuMs(): number | undefined {
  let stat: string;
  try {
    stat = readFileSync('/proc/self/stat', 'utf8');
  } catch {
    return undefined;
  }
  // The command name, in parentheses, may hold spaces; the fields after it are counted from its closing parenthesis.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(fields[13]) + Number(fields[14]);
  return Number.isFinite(ticks) ? ticks * 10 : undefined;
}
