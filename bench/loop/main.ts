import { readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { writeDocsBlock } from '../docs-block.ts';
import type { ChildRequest } from './child.ts';
import { FULL, type LoopConfig, QUICK } from './config.ts';
import { FRAMEWORKS } from './frameworks.ts';
import type { ConstructFigure, CpuFigure, HeapFigure } from './measure.ts';
import { figuresTable, type FrameworkResult, ratios, ratiosTable, targetLines } from './report.ts';
import { runChild } from './spawn-child.ts';

const ROOT = new URL('../../', import.meta.url);

const HELP = `npm run bench -- loop [--quick] [--only agency,ai-sdk] [--metric cpu,heap,construct]

  --quick    bounded run for CI (10- and 50-step runs, a 50-step heap run, 1,000 agents)
  --only     frameworks to run: ${FRAMEWORKS.map((framework) => framework.id).join(', ')}
  --metric   metrics to run: cpu, heap, construct
An unfiltered run writes bench/results/loop.json (loop.quick.json with --quick); a full one also rewrites the
results section of docs/benchmarks.md.`;

/** The agent-loop benchmark: agency against its peers, one child process per framework and metric. */
export async function main(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      quick: { type: 'boolean', default: false },
      only: { type: 'string' },
      metric: { type: 'string' },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    console.log(HELP);
    return;
  }
  const config = values.quick ? QUICK : FULL;
  const only = values.only?.split(',');
  const metrics = (values.metric?.split(',') ?? ['cpu', 'heap', 'construct']) as ChildRequest['metric'][];
  const frameworks = FRAMEWORKS.filter((framework) => !only || only.includes(framework.id));
  if (frameworks.length === 0) throw new Error(`--only matched no framework\n${HELP}`);

  const started = performance.now();
  const loadBefore = loadavg();
  const results: Record<string, FrameworkResult> = {};
  for (const framework of frameworks) {
    const result: FrameworkResult = { label: framework.label, api: framework.api, errors: [] };
    results[framework.id] = result;
    for (const metric of metrics) {
      const childStarted = performance.now();
      try {
        const figures = await runChild(framework.id, requestFor(metric, config), config.childTimeoutMs);
        if (metric === 'cpu') result.cpu = figures as CpuFigure[];
        if (metric === 'heap') result.heap = figures as HeapFigure;
        if (metric === 'construct') result.construct = figures as ConstructFigure;
      } catch (error) {
        result.errors.push((error as Error).message);
        console.error(`  ${(error as Error).message}`);
      }
      const seconds = ((performance.now() - childStarted) / 1000).toFixed(1);
      console.error(`${framework.label.padEnd(14)} ${metric.padEnd(9)} ${seconds.padStart(5)} s`);
    }
  }
  const elapsedSeconds = Number(((performance.now() - started) / 1000).toFixed(1));

  const figures = figuresTable(results);
  const ratioTable = ratiosTable(results);
  const { lines: targets, missed } = targetLines(results);
  console.log(`\n${figures}\n\n${ratioTable}\n\n${targets.join('\n')}\n\n${elapsedSeconds} s`);

  const report = {
    benchmark: 'loop',
    mode: config.mode,
    date: new Date().toISOString(),
    elapsedSeconds,
    machine: { ...machine(), loadAverage: { before: loadBefore, after: loadavg() } },
    packages: packageVersions(frameworks.flatMap((framework) => framework.packages)),
    config,
    frameworks: results,
    ratios: {
      meaning: "agency's figure divided by the peer's: below 1 means agency costs less",
      byPeer: ratios(results),
    },
    targets,
  };
  // A filtered run would leave the results file without the peers, so only a whole run writes it.
  const filtered = only !== undefined || values.metric !== undefined;
  const name = config.mode === 'quick' ? 'loop.quick.json' : 'loop.json';
  if (!filtered) writeFileSync(new URL(`bench/results/${name}`, ROOT), `${JSON.stringify(report, null, 2)}\n`);
  const complete = !filtered && Object.values(results).every((result) => result.errors.length === 0);
  if (config.mode === 'full' && complete) {
    await writeDocsBlock('loop-results', docsBlock(report, figures, ratioTable, targets));
  }
  if (Object.values(results).some((result) => result.errors.length > 0)) process.exitCode = 1;
  // Like the journal bench: a full run fails on a missed target; a quick run only reports it.
  if (config.mode === 'full' && !filtered && missed > 0) {
    console.error(`${missed} target(s) missed`);
    process.exitCode = 1;
  }
}

function requestFor(metric: ChildRequest['metric'], config: LoopConfig): ChildRequest {
  if (metric === 'cpu') return { metric, options: config.cpu };
  if (metric === 'heap') return { metric, ...config.heap };
  if (metric === 'construct') return { metric, ...config.construct };
  throw new Error(`Unknown metric "${String(metric)}"\n${HELP}`);
}

function machine() {
  return {
    cpus: availableParallelism(),
    cpuModel: cpus()[0]?.model ?? 'unknown',
    node: process.version,
    platform: `${process.platform} ${process.arch}`,
  };
}

function packageVersions(packages: string[]): Record<string, string> {
  const versions: Record<string, string> = {};
  for (const name of ['agency', ...packages]) {
    const path = name === 'agency' ? 'package.json' : `node_modules/${name}/package.json`;
    versions[name] = (JSON.parse(readFileSync(new URL(path, ROOT), 'utf8')) as { version: string }).version;
  }
  return versions;
}

function docsBlock(
  report: {
    date: string;
    elapsedSeconds: number;
    machine: ReturnType<typeof machine> & { loadAverage: { before: number[]; after: number[] } };
    packages: object;
  },
  figures: string,
  ratioTable: string,
  targets: string[],
): string {
  const { machine: host } = report;
  const versions = Object.entries(report.packages)
    .map(([name, version]) => `${name} ${String(version)}`)
    .join(', ');
  const load = (values: number[]) => values.map((value) => value.toFixed(1)).join(' ');
  return [
    `Measured ${report.date.slice(0, 10)} on ${host.cpus} × ${host.cpuModel}, Node ${host.node}, ${host.platform}; ` +
      `${versions}. The whole run took ${report.elapsedSeconds} s; load average ${load(host.loadAverage.before)} ` +
      `before and ${load(host.loadAverage.after)} after. CPU cells are the median batch, with the fastest batch in ` +
      'parentheses.',
    '',
    figures,
    '',
    ratioTable,
    '',
    ...targets.map((line) => `- ${line}`),
  ].join('\n');
}
