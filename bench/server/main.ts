import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { writeDocsBlock } from '../docs-block.ts';
import { machine } from '../machine.ts';
import { runFails, type TargetResult, targetLines } from '../journal/report.ts';
import { serverFixture } from './fixtures.ts';
import { deliveryLatency, quantile, requestsPerSecond, startAgency, startBare, streamThroughput } from './measure.ts';

const ROOT = new URL('../../', import.meta.url);

const HELP = `npm run bench -- server [--quick]

  --quick   bounded run for CI (shorter load rounds, fewer frames); reports a missed timing target without failing
A full run fails on a missed target and rewrites the server results section of docs/benchmarks.md.`;

const FULL = {
  mode: 'full',
  rounds: 4,
  seconds: 4,
  concurrency: 16,
  subscribers: 100,
  frames: 300,
  stream: 200_000,
} as const;
const QUICK = {
  mode: 'quick',
  rounds: 2,
  seconds: 1,
  concurrency: 16,
  subscribers: 100,
  frames: 60,
  stream: 50_000,
} as const;

/** The targets: against a bare node:http server doing the same reads, and for event delivery. */
export const TARGETS = { ratioVsBare: 0.9, latencyP99Ms: 20, eventsPerSecond: 100_000 } as const;

/** The server benchmark: GET /agent/tasks/{id} against bare node:http, SSE delivery latency, stream throughput. */
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
  const fixture = await serverFixture();
  const agency = await startAgency(fixture.root, fixture.service);
  const bare = await startBare(fixture.service);
  try {
    // Taking turns, so a busy moment of the machine falls on both alike.
    const agencyRps: number[] = [];
    const bareRps: number[] = [];
    const path = `/agent/tasks/${fixture.finished}`;
    await requestsPerSecond(`${agency.url}${path}`, config.concurrency, 1);
    await requestsPerSecond(`${bare.url}${path}`, config.concurrency, 1);
    for (let round = 0; round < config.rounds; round++) {
      agencyRps.push(await requestsPerSecond(`${agency.url}${path}`, config.concurrency, config.seconds));
      bareRps.push(await requestsPerSecond(`${bare.url}${path}`, config.concurrency, config.seconds));
    }
    const latencies = await deliveryLatency(agency, fixture.root, {
      subscribers: config.subscribers,
      frames: config.frames,
      gapMs: 10,
    });
    const throughput = await streamThroughput(agency, fixture.root, config.stream);
    const median = (list: number[]) => quantile(list, 0.5);
    const report = {
      benchmark: 'server',
      mode: config.mode,
      date: new Date().toISOString(),
      elapsedSeconds: 0,
      machine: machine(),
      config,
      requests: {
        agencyRps: Math.round(median(agencyRps)),
        bareRps: Math.round(median(bareRps)),
        ratio: Number((median(agencyRps) / median(bareRps)).toFixed(3)),
        rounds: { agency: agencyRps.map(Math.round), bare: bareRps.map(Math.round) },
      },
      latency: {
        samples: latencies.length,
        expected: config.subscribers * config.frames,
        p50Ms: Number(quantile(latencies, 0.5).toFixed(2)),
        p99Ms: Number(quantile(latencies, 0.99).toFixed(2)),
        maxMs: Number(Math.max(...latencies).toFixed(2)),
      },
      throughput: { frames: config.stream, eventsPerSecond: Math.round(throughput) },
      targets: TARGETS,
      targetsMet: [] as boolean[],
    };
    report.elapsedSeconds = Number(((performance.now() - started) / 1000).toFixed(1));
    const results: TargetResult[] = [
      {
        met: report.requests.ratio >= TARGETS.ratioVsBare,
        timing: true,
        text: `GET /agent/tasks/{id} ≥ ${TARGETS.ratioVsBare}× a bare node:http server doing the same reads (${report.requests.ratio}×: ${report.requests.agencyRps} against ${report.requests.bareRps} requests/s)`,
      },
      {
        met: report.latency.p99Ms <= TARGETS.latencyP99Ms,
        timing: true,
        text: `journal → stream delivery p99 ≤ ${TARGETS.latencyP99Ms} ms with ${config.subscribers} subscribers (p99 ${report.latency.p99Ms} ms, p50 ${report.latency.p50Ms} ms)`,
      },
      {
        met: report.latency.samples === report.latency.expected,
        timing: false,
        text: `every subscriber received every frame (${report.latency.samples} of ${report.latency.expected})`,
      },
      {
        met: report.throughput.eventsPerSecond >= TARGETS.eventsPerSecond,
        timing: true,
        text: `≥ ${TARGETS.eventsPerSecond.toLocaleString('en-US')} events/s to one subscriber (${report.throughput.eventsPerSecond.toLocaleString('en-US')} over ${config.stream.toLocaleString('en-US')} frames)`,
      },
    ];
    report.targetsMet = results.map(({ met }) => met);
    const targets = targetLines(config.mode, results);
    console.log(`${targets.join('\n')}\n\n${report.elapsedSeconds} s`);
    writeFileSync(
      new URL(`bench/results/${config.mode === 'quick' ? 'server.quick.json' : 'server.json'}`, ROOT),
      `${JSON.stringify(report, null, 2)}\n`,
    );
    if (config.mode === 'full') await writeDocsBlock('server-results', docsBlock(report, targets));
    if (runFails(config.mode, results)) process.exitCode = 1;
  } finally {
    await bare.close();
    await agency.close();
    await fixture.remove();
  }
}

function docsBlock(
  report: {
    date: string;
    machine: { cpus: number; cpuModel: string; loadAverage1m: number; node: string };
    elapsedSeconds: number;
    requests: { rounds: { agency: number[]; bare: number[] } };
  },
  targets: string[],
): string {
  const { machine } = report;
  return [
    `Measured ${report.date.slice(0, 10)} on ${machine.cpus} × ${machine.cpuModel} (load average ${machine.loadAverage1m}), ` +
      `Node ${machine.node}; the whole run took ${report.elapsedSeconds} s. Requests/s per round, taking turns: agency ` +
      `${report.requests.rounds.agency.join(', ')}; bare node:http ${report.requests.rounds.bare.join(', ')}.`,
    '',
    ...targets.map((line) => `- ${line}`),
  ].join('\n');
}
