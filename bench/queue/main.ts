import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { PgBoss } from 'pg-boss';
import { writeDocsBlock } from '../docs-block.ts';
import { runFails, targetLines } from '../journal/report.ts';
import { machine } from '../machine.ts';
import { startPostgres, type TempPostgres } from '../../test/support/postgres.ts';
import {
  CAPACITY_ASSUMPTIONS,
  capacity,
  createBenchRegistry,
  heartbeatOf,
  measureStatementCost,
  serverCpuMs,
} from './capacity.ts';
import { agencyEngine } from './agency-engine.ts';
import { graphileEngine, pgBossEngine, type QueueEngine } from './engines.ts';
import { measureLatency, measureThroughput, probe } from './measure.ts';
import { type EngineFigures, type QueueReport, reportLines, TARGETS, targetResults } from './report.ts';

const ROOT = new URL('../../', import.meta.url);

const HELP = `npm run bench -- queue [--quick]

  --quick   bounded run for CI (100 jobs per queue, 10 latency samples, 2 s per statement cost); reports a missed
            timing target without failing
A full run fails on a missed target and rewrites the queue results section of docs/benchmarks.md.`;

const FULL = {
  mode: 'full',
  jobs: 1000,
  senders: 4,
  windowSeconds: 60,
  latencyRuns: 100,
  consumers: 3,
  costSeconds: 8,
  costRuns: 200,
} as const;
const QUICK = {
  mode: 'quick',
  jobs: 100,
  senders: 4,
  windowSeconds: 15,
  latencyRuns: 10,
  consumers: 3,
  costSeconds: 2,
  costRuns: 20,
} as const;
type Config = typeof FULL | typeof QUICK;

// The raw row shaped as agency's queue workers use pg-boss: the fleet layer's baseline.
const BASELINE = 'pg-boss, NOTIFY';
// The row whose server CPU per job stands for a task's in the capacity figure.
const TASK_COST_FROM = 'agency fleet layer';

/** A queue to measure, and its role in the comparison. */
type Contender = Pick<EngineFigures, 'role' | 'baseline'> & { engine: QueueEngine };

/** The queue benchmark: raw pg-boss, graphile-worker, the registry's heartbeat and poll costs, on one PostgreSQL. */
export async function main(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: { quick: { type: 'boolean', default: false }, help: { type: 'boolean', default: false } },
  });
  if (values.help) return void console.log(HELP);
  const config: Config = values.quick ? QUICK : FULL;
  const started = performance.now();
  const postgres = await startPostgres();
  try {
    const report = await measureAll(postgres, config);
    report.elapsedSeconds = Number(((performance.now() - started) / 1000).toFixed(1));
    const results = targetResults(report);
    report.targetsMet = results.map(({ met }) => met);
    const lines = reportLines(report);
    const targets = targetLines(config.mode, results);
    console.log(`${lines.join('\n')}\n\n${targets.join('\n')}\n\n${report.elapsedSeconds} s`);
    writeFileSync(
      new URL(`bench/results/${config.mode === 'quick' ? 'queue.quick.json' : 'queue.json'}`, ROOT),
      `${JSON.stringify(report, null, 2)}\n`,
    );
    if (config.mode === 'full') await writeDocsBlock('queue-results', docsBlock(report, lines, targets));
    if (runFails(config.mode, results)) process.exitCode = 1;
  } finally {
    await postgres.stop();
  }
}

async function measureAll(postgres: TempPostgres, config: Config): Promise<QueueReport> {
  const engines: EngineFigures[] = [];
  for (const contender of contenders(postgres.url, config.consumers)) {
    engines.push(await measureEngine(postgres, contender, config));
  }
  const costs = await measureCosts(postgres, config);
  const base = engines.find(({ name }) => name === TASK_COST_FROM);
  const taskCpuMs = base?.serverCpuMsPerJob ?? 0;
  const taskCpuFrom = `server CPU per job of ${base?.name ?? 'no'} (${base?.detail ?? ''})`;
  return {
    benchmark: 'queue',
    mode: config.mode,
    date: new Date().toISOString(),
    elapsedSeconds: 0,
    machine: machine(),
    postgres: postgres.version,
    config,
    engines,
    costs: { ...costs, taskCpuMs, taskCpuFrom },
    assumptions: CAPACITY_ASSUMPTIONS,
    capacity: capacity({
      heartbeatCpuMs: costs.heartbeat.serverCpuMsEach,
      pollCpuMs: costs.emptyPoll.serverCpuMsEach,
      taskCpuMs,
    }),
    targets: TARGETS,
    targetsMet: [],
  };
}

// The raw baselines, with as many consumers as the fleet layer has workers: pg-boss one job per fetch (as a worker
// that runs one task at a time takes them) polling at its fastest (0.5 s); the same as agency's queue workers use
// it (woken by NOTIFY, polling every 0.5 s besides, the next fetch at once after a job), the fleet layer's baseline;
// the fleet layer itself; pg-boss in batches, its best throughput; graphile-worker, woken by NOTIFY.
function contenders(url: string, consumers: number): Contender[] {
  const one = { batchSize: 1, localConcurrency: consumers, pollingIntervalSeconds: 0.5 };
  const asAgency = { ...one, notifyPollingIntervalSeconds: 0.5 };
  const batches = { batchSize: 20, burstWhenBatchFull: true, localConcurrency: 1, pollingIntervalSeconds: 0.5 };
  return [
    { role: 'raw', engine: pgBossEngine(url, 'bench-poll', { name: 'pg-boss, polling', notify: false, work: one }) },
    {
      role: 'raw',
      engine: pgBossEngine(url, 'bench-notify', { name: BASELINE, notify: true, work: asAgency, nextAtOnce: true }),
    },
    { role: 'agency', baseline: BASELINE, engine: agencyEngine(url, consumers) },
    {
      role: 'raw',
      engine: pgBossEngine(url, 'bench-batch', { name: 'pg-boss, batches', notify: false, work: batches }),
    },
    { role: 'reference', engine: graphileEngine(url, consumers) },
  ];
}

async function measureEngine(postgres: TempPostgres, contender: Contender, config: Config): Promise<EngineFigures> {
  const probed = await probe(contender.engine);
  try {
    const latency = await measureLatency(probed, {
      runs: config.latencyRuns,
      from: 0,
      // Past a polling consumer's whole cycle, so a job arrives at a random moment of it.
      maxGapMs: contender.engine.pollMs * 1.5 || 20,
      timeoutMs: 30_000,
    });
    const cpuBefore = serverCpuMs(postgres.dataDir);
    const throughput = await measureThroughput(probed, {
      jobs: config.jobs,
      senders: config.senders,
      from: 1_000_000,
      windowMs: config.windowSeconds * 1000,
    });
    const cpu = serverCpuMs(postgres.dataDir) - cpuBefore;
    const { name, detail } = contender.engine;
    const serverCpuMsPerJob = Number((cpu / Math.max(1, throughput.completed)).toFixed(3));
    const baseline = contender.baseline === undefined ? {} : { baseline: contender.baseline };
    return { name, detail, role: contender.role, ...baseline, latency, throughput, serverCpuMsPerJob };
  } finally {
    await probed.stop();
  }
}

async function measureCosts(postgres: TempPostgres, config: Config) {
  const rows = 1000;
  const shape = { connections: 4, seconds: config.costSeconds, latencyRuns: config.costRuns };
  await createBenchRegistry(postgres.url, rows);
  const heartbeatCost = await measureStatementCost(postgres.url, postgres.dataDir, heartbeatOf(rows), shape);
  const boss = new PgBoss({ connectionString: postgres.url, max: 4, supervise: false, schedule: false });
  boss.on('error', (error: Error) => console.error(`pg-boss (empty poll): ${error.message}`));
  await boss.start();
  try {
    await boss.createQueue('bench-empty');
    const emptyPoll = await measureStatementCost(
      postgres.url,
      postgres.dataDir,
      () => boss.fetch('bench-empty'),
      shape,
    );
    return { heartbeat: heartbeatCost, emptyPoll };
  } finally {
    await boss.stop({ graceful: false });
  }
}

function docsBlock(report: QueueReport, lines: string[], targets: string[]): string {
  const { machine: host } = report;
  return [
    `Measured ${report.date.slice(0, 10)} on ${host.cpus} × ${host.cpuModel} (load average ${host.loadAverage1m}), ` +
      `Node ${host.node}, PostgreSQL ${report.postgres} with its default settings (a throwaway cluster, ` +
      `\`test/support/postgres.ts\`); the whole run took ${report.elapsedSeconds} s.`,
    '',
    ...lines,
    '',
    ...targets.map((line) => `- ${line}`),
  ].join('\n');
}
