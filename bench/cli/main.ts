import { existsSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { writeDocsBlock } from '../docs-block.ts';
import { machine } from '../machine.ts';
import { runFails, targetLines } from '../journal/report.ts';
import { makeStatusFolders } from './fixtures.ts';
import { type Case, measureCases } from './measure.ts';
import { type CliReport, reportLines, TARGETS, targetResults } from './report.ts';

const ROOT = new URL('../../', import.meta.url);
const AGENCY = fileURLToPath(new URL('bin/agency.js', ROOT));

const HELP = `npm run bench -- cli [--quick]

  --quick   bounded run for CI (10 timed runs of each command instead of 40); it fails if a command exits non-zero
            or prints the wrong thing, and reports a missed timing target without failing
A full run fails on any missed target, and rewrites the CLI results section of docs/benchmarks.md.`;

const FULL = { mode: 'full', runs: 40, warmups: 3 } as const;
const QUICK = { mode: 'quick', runs: 10, warmups: 2 } as const;

// Agent-framework CLIs timed beside agency when a dev dependency provides them. None is installed now; they are
// not added just for this, since each pulls in a whole framework.
const PEERS = [
  { bin: 'mastra', args: ['--help'] },
  { bin: 'langgraphjs', args: ['--help'] },
] as const;

/** The CLI start-up benchmark: `agency --help` and `agency status` against a bare Node process and peer CLIs. */
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
  const folders = await makeStatusFolders();
  // agency uses its compile cache where a user's would be, and the warm-ups fill it, as a user's first start does.
  // The peers are left as they are: NODE_COMPILE_CACHE is not set for anyone.
  try {
    const peers = PEERS.map((peer) => ({
      ...peer,
      file: fileURLToPath(new URL(`node_modules/.bin/${peer.bin}`, ROOT)),
    }));
    const cases: Case[] = [
      { id: 'floor', label: '`node -e 0` (the floor)', file: process.execPath, args: ['-e', '0'] },
      {
        id: 'help',
        label: '`agency --help`',
        file: process.execPath,
        args: [AGENCY, '--help'],
        expect: /^Usage: agency /,
      },
      {
        id: 'help-no-cache',
        label: '`agency --help`, compile cache off (a first start)',
        file: process.execPath,
        args: [AGENCY, '--help'],
        env: { NODE_DISABLE_COMPILE_CACHE: '1' },
        expect: /^Usage: agency /,
      },
      {
        id: 'status-fresh',
        label: '`agency status`, a task never run',
        file: process.execPath,
        args: [AGENCY, 'status', folders.fresh],
        expect: /not started/,
      },
      {
        id: 'status-finished',
        label: '`agency status`, a completed run',
        file: process.execPath,
        args: [AGENCY, 'status', folders.finished],
        expect: /Status:\s+completed/,
      },
      ...peers
        .filter((peer) => existsSync(peer.file))
        .map((peer) => ({
          id: peer.bin,
          label: `\`${peer.bin} ${peer.args.join(' ')}\``,
          file: peer.file,
          args: [...peer.args],
        })),
    ];

    const report: CliReport = {
      benchmark: 'cli',
      mode: config.mode,
      date: new Date().toISOString(),
      elapsedSeconds: 0,
      machine: machine(),
      config: { runs: config.runs, warmups: config.warmups },
      cases: measureCases(cases, config),
      peersMissing: peers.filter((peer) => !existsSync(peer.file)).map((peer) => peer.bin),
      targets: TARGETS,
      targetsMet: [],
    };
    report.elapsedSeconds = Number(((performance.now() - started) / 1000).toFixed(1));
    const results = targetResults(report);
    const targets = targetLines(config.mode, results);
    report.targetsMet = results.map(({ met }) => met);
    const lines = reportLines(report);
    const missing = report.peersMissing.length > 0 ? `Peer CLIs not installed: ${report.peersMissing.join(', ')}.` : '';
    console.log(`${lines.join('\n')}\n\n${missing}\n\n${targets.join('\n')}\n\n${report.elapsedSeconds} s`);
    const name = config.mode === 'quick' ? 'cli.quick.json' : 'cli.json';
    writeFileSync(new URL(`bench/results/${name}`, ROOT), `${JSON.stringify(report, null, 2)}\n`);
    if (config.mode === 'full') await writeDocsBlock('cli-results', docsBlock(report, lines, targets));
    if (runFails(config.mode, results)) process.exitCode = 1;
  } finally {
    await folders.remove();
  }
}

function docsBlock(report: CliReport, lines: string[], targets: string[]): string {
  const { machine: host } = report;
  const peers =
    report.peersMissing.length > 0
      ? ` No peer CLI is installed as a dev dependency (looked for: ${report.peersMissing.join(', ')}).`
      : '';
  return [
    `Measured ${report.date.slice(0, 10)} on ${host.cpus} × ${host.cpuModel} (load average ${host.loadAverage1m}), ` +
      `Node ${host.node}, ${host.platform}: ${report.config.runs} timed runs of each command after ` +
      `${report.config.warmups} warm-ups, taking turns. The whole run took ${report.elapsedSeconds} s.${peers}`,
    '',
    ...lines,
    '',
    ...targets.map((line) => `- ${line}`),
  ].join('\n');
}
