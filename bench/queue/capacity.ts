import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { openFleetDatabase } from '../../src/fleet/queue/index.ts';
import { heartbeat, registerWorker } from '../../src/fleet/queue/registry.ts';
import { spread } from '../fleet/measure.ts';

/**
 * CPU time the PostgreSQL cluster in `dataDir` has used so far, in ms: the postmaster and its live backends, plus
 * what its ended backends used (the postmaster's children's time, counted once it has reaped them).
 */
export function serverCpuMs(dataDir: string): number {
  const postmaster = Number(readFileSync(path.join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
  const ticksPerSecond = clockTicks();
  let ticks = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const fields = statFields(entry);
    if (!fields) continue;
    const pid = Number(entry);
    const ppid = Number(fields[1]);
    if (pid === postmaster) ticks += sum(fields, [11, 12, 13, 14]);
    else if (ppid === postmaster) ticks += sum(fields, [11, 12]);
  }
  return (ticks * 1000) / ticksPerSecond;
}

// The fields of /proc/<pid>/stat after the command name, or undefined for a process that is gone.
function statFields(pid: string): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}

const sum = (fields: string[], at: number[]) => at.reduce((total, index) => total + Number(fields[index] ?? 0), 0);

let ticks: number | undefined;
function clockTicks(): number {
  ticks ??= Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  return ticks;
}

/** What one kind of statement costs the server: CPU ms per statement, statements/s reached, and one's latency. */
export type StatementCost = {
  statements: number;
  connections: number;
  perSecond: number;
  serverCpuMsEach: number;
  latency: { p50Ms: number; p99Ms: number; runs: number };
};

/**
 * Runs `statement(client, i)` from `connections` connections for `seconds`, as fast as they go, and reports the
 * server's CPU per statement and the rate reached; then its latency alone, one at a time, `latencyRuns` times.
 */
export async function measureStatementCost(
  url: string,
  dataDir: string,
  statement: (client: pg.PoolClient, i: number) => Promise<unknown>,
  { connections, seconds, latencyRuns }: { connections: number; seconds: number; latencyRuns: number },
): Promise<StatementCost> {
  const pool = new pg.Pool({ connectionString: url, max: connections });
  try {
    const clients = await Promise.all(Array.from({ length: connections }, () => pool.connect()));
    let count = 0;
    const cpuBefore = serverCpuMs(dataDir);
    const started = performance.now();
    const until = started + seconds * 1000;
    await Promise.all(
      clients.map(async (client) => {
        while (performance.now() < until) await statement(client, count++);
      }),
    );
    const elapsed = (performance.now() - started) / 1000;
    const cpu = serverCpuMs(dataDir) - cpuBefore;
    const times: number[] = [];
    const [first] = clients;
    for (let i = 0; first && i < latencyRuns; i++) {
      const at = performance.now();
      await statement(first, count + i);
      times.push(performance.now() - at);
    }
    for (const client of clients) client.release();
    return {
      statements: count,
      connections,
      perSecond: Math.round(count / elapsed),
      serverCpuMsEach: Number((cpu / count).toFixed(4)),
      latency: spread(times),
    };
  } finally {
    await pool.end();
  }
}

/** `rows` workers registered in the fleet's registry (`agency.workers`, migrated first), for the heartbeat's cost. */
export async function createBenchRegistry(url: string, rows: number): Promise<void> {
  const db = openFleetDatabase(url);
  try {
    await db.migrate();
    for (let i = 0; i < rows; i++)
      await registerWorker(db.pool, {
        name: `worker-${i}`,
        url: `http://10.0.${i >> 8}.${i & 255}:9000`,
        executors: ['builtin'],
        heartbeatSeconds: 10,
      });
  } finally {
    await db.close();
  }
}

/** One heartbeat, as a queue worker sends it (src/fleet/queue/registry.ts): worker `i mod rows`, its state and task. */
export function heartbeatOf(rows: number) {
  return (client: pg.PoolClient, i: number) =>
    heartbeat(
      client as unknown as pg.Pool,
      `worker-${i % rows}`,
      i % 2 ? 'working' : 'idle',
      i % 2 ? `task-${i}` : null,
    );
}

/** The assumptions of the capacity figure; the costs are measured, these are chosen and stated. */
export type CapacityAssumptions = {
  /** How often a worker writes its registry row. */
  heartbeatSeconds: number;
  /** How often an idle worker asks the queue for a job (agency's queue workers: every 0.5 s, besides NOTIFY). */
  idlePollSeconds: number;
  /** Tasks a worker takes per hour, each costing one dispatch. */
  tasksPerWorkerPerHour: number;
  /** Server CPU the fleet may use: half of one core, leaving the rest for everything else the database does. */
  serverCpuBudgetMsPerSecond: number;
};

/** The assumptions the docs state beside the capacity figure. */
export const CAPACITY_ASSUMPTIONS: CapacityAssumptions = {
  heartbeatSeconds: 10,
  idlePollSeconds: 0.5,
  tasksPerWorkerPerHour: 60,
  serverCpuBudgetMsPerSecond: 500,
};

/**
 * How many workers one PostgreSQL carries: the server CPU budget over what one worker costs it per second — its
 * heartbeats alone; with its idle polls and its tasks; and with the wake-ups NOTIFY causes besides (every task sent
 * wakes every idle worker of its queue to fetch, so N workers cost N² × tasks/s × a poll: the count N where
 * N × per-worker + N² × that reaches the budget, counting every worker as idle, an upper bound on the cost).
 */
export function capacity(
  { heartbeatCpuMs, pollCpuMs, taskCpuMs }: { heartbeatCpuMs: number; pollCpuMs: number; taskCpuMs: number },
  assume: CapacityAssumptions = CAPACITY_ASSUMPTIONS,
): { heartbeatsOnly: number; withPollingAndTasks: number; withWakeups: number; workerCpuMsPerSecond: number } {
  const budget = assume.serverCpuBudgetMsPerSecond;
  const heartbeats = heartbeatCpuMs / assume.heartbeatSeconds;
  const tasksPerSecond = assume.tasksPerWorkerPerHour / 3600;
  const perWorker = heartbeats + pollCpuMs / assume.idlePollSeconds + taskCpuMs * tasksPerSecond;
  const wakeups = tasksPerSecond * pollCpuMs;
  return {
    heartbeatsOnly: Math.floor(budget / heartbeats),
    withPollingAndTasks: Math.floor(budget / perWorker),
    withWakeups: Math.floor((-perWorker + Math.sqrt(perWorker ** 2 + 4 * wakeups * budget)) / (2 * wakeups)),
    workerCpuMsPerSecond: Number(perWorker.toFixed(4)),
  };
}
