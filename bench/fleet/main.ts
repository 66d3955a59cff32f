import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { writeDocsBlock } from '../docs-block.ts';
import { machine } from '../machine.ts';
import { runFails, targetLines } from '../journal/report.ts';
import { measureDispatch, measureOneShotScan, measurePolling, measureTimeToSee } from './measure.ts';
import { type FleetReport, reportLines, TARGETS, targetResults } from './report.ts';
import { startWorker, WORKER_UNDER_TEST } from './target.ts';

const ROOT = new URL('../../', import.meta.url);

const HELP = `npm run bench -- fleet [--quick]

  --quick   bounded run for CI (fewer tasks, 2 discovery samples, 4 s of polling); reports a missed timing target
            without failing
A full run fails on a missed target and rewrites the fleet results section of docs/benchmarks.md.`;

const FULL = {
  mode: 'full',
  runs: 200,
  warmups: 20,
  directorRuns: 10,
  scanRuns: 20,
  seeSamples: 6,
  pollSeconds: 10,
} as const;
const QUICK = {
  mode: 'quick',
  runs: 40,
  warmups: 5,
  directorRuns: 3,
  scanRuns: 5,
  seeSamples: 2,
  pollSeconds: 4,
} as const;

// The executor: a process that exits at once, after one line of output.
const COMMAND: [string, ...string[]] = ['/bin/sh', '-c', 'echo done'];

/** The fleet benchmark: task dispatch through a worker against spawning its executor directly; discovery. */
export async function main(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: { quick: { type: 'boolean', default: false }, help: { type: 'boolean', default: false } },
  });
  if (values.help) {
    console.log(HELP);
    return;
  }
  const config = values.quick ? QUICK : FULL;
  const started = performance.now();
  const dispatch = await measureDispatch({ startWorker, command: COMMAND, ...config });
  const scan = await measureOneShotScan({ startWorker, command: COMMAND, size: 200, runs: config.scanRuns });
  const timeToSee = await measureTimeToSee({ startWorker, command: COMMAND, samples: config.seeSamples });
  const polling = await measurePolling({ count: 50, working: 25, seconds: config.pollSeconds });
  const report: FleetReport = {
    benchmark: 'fleet',
    mode: config.mode,
    date: new Date().toISOString(),
    elapsedSeconds: 0,
    machine: machine(),
    worker: WORKER_UNDER_TEST,
    command: COMMAND,
    config,
    dispatch,
    scan,
    timeToSee,
    polling,
    targets: TARGETS,
    targetsMet: [],
  };
  report.elapsedSeconds = Number(((performance.now() - started) / 1000).toFixed(1));
  const results = targetResults(report);
  report.targetsMet = results.map(({ met }) => met);
  const lines = reportLines(report);
  const targets = targetLines(config.mode, results);
  console.log(`${lines.join('\n')}\n\n${targets.join('\n')}\n\n${report.elapsedSeconds} s`);
  writeFileSync(
    new URL(`bench/results/${config.mode === 'quick' ? 'fleet.quick.json' : 'fleet.json'}`, ROOT),
    `${JSON.stringify(report, null, 2)}\n`,
  );
  if (config.mode === 'full') await writeDocsBlock('fleet-results', docsBlock(report, lines, targets));
  if (runFails(config.mode, results)) process.exitCode = 1;
}

function docsBlock(report: FleetReport, lines: string[], targets: string[]): string {
  const { machine: host } = report;
  return [
    `Measured ${report.date.slice(0, 10)} on ${host.cpus} × ${host.cpuModel} (load average ${host.loadAverage1m}), ` +
      `Node ${host.node}, against ${report.worker}, with \`${report.command.join(' ')}\` as the executor; the whole ` +
      `run took ${report.elapsedSeconds} s.`,
    '',
    ...lines,
    '',
    ...targets.map((line) => `- ${line}`),
  ].join('\n');
}
