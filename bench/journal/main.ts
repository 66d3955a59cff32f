import { mkdtempSync, rmSync, statfsSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { writeDocsBlock } from '../docs-block.ts';
import { machine } from '../machine.ts';
import { measureDurableStep } from './durable-step.ts';
import { measureEventLoop } from './event-loop.ts';
import { measureAppend, measureGroupCommit } from './measure.ts';
import { measurePeers, type PeerFigures } from './peers.ts';
import { type JournalReport, reportLines, runFails, TARGETS, targetLines, targetResults } from './report.ts';

const ROOT = new URL('../../', import.meta.url);

const HELP = `npm run bench -- journal [--quick] [--dir <path>] [--no-peers]

  --quick     bounded run for CI (fewer events, steps and rounds); it fails on a missed count target, and reports
              a missed timing target without failing, since so short a run cannot judge a 25% margin
  --dir       where to write the test files (default: the OS temp dir); it must be on the disk you care about,
              since fsync costs nothing on tmpfs
  --no-peers  skip DBOS and LangGraph (and the PostgreSQL they need)
A full run also rewrites the Journal results section of docs/benchmarks.md.`;

const FULL = {
  mode: 'full',
  append: { events: 200_000, batch: 10_000 },
  group: { steps: 200, eventsPerStep: 20 },
  step: { steps: 3000 },
  eventLoop: { runsAtOnce: 8, rounds: 5 },
  peers: { steps: 100, rounds: 5 },
} as const;

const QUICK = {
  mode: 'quick',
  append: { events: 40_000, batch: 5_000 },
  group: { steps: 40, eventsPerStep: 20 },
  step: { steps: 300 },
  eventLoop: { runsAtOnce: 8, rounds: 1 },
  peers: { steps: 30, rounds: 1 },
} as const;

/** The journal benchmark: append cost, group commit, per-event fsync against the raw floor, checkpoints. */
export async function main(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      quick: { type: 'boolean', default: false },
      dir: { type: 'string' },
      'no-peers': { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    console.log(HELP);
    return;
  }
  const config = values.quick ? QUICK : FULL;
  const dir = mkdtempSync(path.join(values.dir ?? tmpdir(), 'agency-bench-journal-'));
  const filesystem = filesystemOf(dir);
  if (filesystem === 'tmpfs') console.error('warning: the bench directory is on tmpfs, where fsync is a no-op');
  const started = performance.now();
  try {
    // First, in a fresh process: the append measurement leaves tens of MB of garbage whose collection would land in
    // the event loop's figures.
    const eventLoop = await measureEventLoop(config.eventLoop);
    const report: JournalReport = {
      benchmark: 'journal',
      mode: config.mode,
      date: new Date().toISOString(),
      elapsedSeconds: 0,
      machine: machine(),
      disk: { dir: path.dirname(dir), filesystem },
      config,
      append: await measureAppend(dir, config.append),
      groupCommit: await measureGroupCommit(dir, config.group),
      durableStep: await measureDurableStep({ dir, ...config.step }),
      eventLoop,
      ...(await peers(dir, config.peers, values['no-peers'])),
      targets: TARGETS,
      targetsMet: [],
    };
    report.elapsedSeconds = Number(((performance.now() - started) / 1000).toFixed(1));
    const results = targetResults(report);
    const targets = targetLines(config.mode, results);
    report.targetsMet = results.map(({ met }) => met);
    const lines = reportLines(report);
    console.log(`${lines.join('\n')}\n\n${targets.join('\n')}\n\n${report.elapsedSeconds} s`);
    const name = config.mode === 'quick' ? 'journal.quick.json' : 'journal.json';
    writeFileSync(new URL(`bench/results/${name}`, ROOT), `${JSON.stringify(report, null, 2)}\n`);
    if (config.mode === 'full') await updateDocs(report, lines, targets);
    if (runFails(config.mode, results)) process.exitCode = 1;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

// The peers need PostgreSQL; where it cannot be started the run says why and goes on without them.
async function peers(
  dir: string,
  config: { steps: number; rounds: number },
  skip: boolean,
): Promise<{ peers: PeerFigures } | { peersSkipped: string }> {
  if (skip) return { peersSkipped: '--no-peers was given' };
  try {
    return { peers: await measurePeers({ dir, ...config }) };
  } catch (error) {
    const reason = `PostgreSQL or a peer could not run (${error instanceof Error ? error.message.split('\n')[0] : String(error)})`;
    console.error(`warning: ${reason}`);
    return { peersSkipped: reason };
  }
}

const FILESYSTEMS: Record<number, string> = {
  0xef53: 'ext4',
  0x58465342: 'xfs',
  0x9123683e: 'btrfs',
  0x01021994: 'tmpfs',
  0x794c7630: 'overlayfs',
  0x2fc12fc1: 'zfs',
  0x6969: 'nfs',
  0x65735546: 'fuse',
};

function filesystemOf(dir: string): string {
  try {
    const { type } = statfsSync(dir);
    return FILESYSTEMS[type] ?? `0x${type.toString(16)}`;
  } catch {
    return 'unknown';
  }
}

// Only the generated block between the markers is replaced; the prose around it is written by hand.
async function updateDocs(report: JournalReport, lines: string[], targets: string[]): Promise<void> {
  const { machine: host, disk } = report;
  const generated = [
    `Measured ${report.date.slice(0, 10)} on ${host.cpus} × ${host.cpuModel} (load average ${host.loadAverage1m}), ` +
      `Node ${host.node}, ${host.platform}, on ${disk.filesystem}. The whole run took ${report.elapsedSeconds} s.`,
    '',
    ...lines,
    '',
    ...targets.map((line) => `- ${line}`),
  ].join('\n');
  await writeDocsBlock('journal-results', generated);
}
