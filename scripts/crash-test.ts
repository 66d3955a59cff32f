// Crash loop: runs the research demo task, SIGKILLs it at a random moment, resumes, and repeats until it finishes;
// then starts again on a fresh copy, until `--iterations` kill points have been tried. After every kill it checks:
//   - every event acknowledged before the kill (up to state.json's last_seq) is still in the journal, unchanged;
//   - state.json parses and agrees with the fold of the journal up to its last_seq;
//   - at most one torn final line, which the resume repairs;
//   - the run finishes with the same deliverables (sha256) as an uninterrupted run, and no temp file is left behind.
//
//   node scripts/crash-test.ts [--iterations 50] [--seed 1] [--json results.json]
import { execFile, spawn } from 'node:child_process';
import { cp, mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join, sep } from 'node:path';
import { parseArgs, promisify } from 'node:util';
import { RECORDED_PORT, startSite } from '../examples/research/serve-site.ts';
import { isTempFileName } from '../src/core/temp-files.ts';
import type { EventFrame } from '../src/task/contracts/events.ts';
import { stateSchema } from '../src/task/contracts/state.ts';
import { foldJournal } from '../src/task/journal-fold.ts';
import { readJournal } from '../src/task/journal/read-journal.ts';
import { taskPaths } from '../src/task/layout.ts';
import { listDeliverables } from '../src/task/deliverables.ts';

const repo = join(import.meta.dirname, '..');
const cli = join(repo, 'bin', 'agency.js');
const cassette = join(repo, 'examples', 'research', 'cassette.jsonl');
const { values } = parseArgs({
  options: {
    iterations: { type: 'string', default: '50' },
    seed: { type: 'string', default: '1' },
    json: { type: 'string' },
  },
});
const iterations = Number(values.iterations);
let seed = Number(values.seed);
const random = () => {
  // mulberry32: reproducible kill points for a given seed.
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};

type Deliverable = { path: string; sha256: string };
const args = (mode: 'run' | 'resume', root: string) => [
  cli,
  mode,
  root,
  '--model',
  `replay:${cassette}`,
  '--approvals',
  'auto',
  // The operator allows the research site; the task's own agency.json may only narrow that.
  '--allow-host',
  `127.0.0.1:${RECORDED_PORT}`,
  '--json',
];

async function freshRoot(name: string): Promise<string> {
  const root = join(repo, '.demo', 'crash', name);
  await rm(root, { recursive: true, force: true });
  await mkdir(root, { recursive: true });
  await cp(join(repo, 'examples', 'research', 'task'), join(root, 'task'), { recursive: true });
  return root;
}

async function deliverablesOf(root: string): Promise<Deliverable[]> {
  return (await listDeliverables(taskPaths(root))).deliverables;
}

async function journalOf(root: string, repair = false) {
  return readJournal(join(root, 'progress', 'events.ndjson'), { repair }).catch(() => ({
    frames: [] as EventFrame[],
    torn: undefined,
  }));
}

function resultOf(stdout: string): { finishReason: string; deliverables: Deliverable[] } {
  const last = stdout.trim().split('\n').at(-1) ?? '{}';
  return (JSON.parse(last) as { result: { finishReason: string; deliverables: Deliverable[] } }).result;
}

const failures: string[] = [];
const pendingChecks: Array<{ root: string; where: string; acknowledged: EventFrame[] }> = [];
const stats = {
  killPoints: 0,
  runs: 0,
  resumes: 0,
  tornLines: 0,
  killedBeforeStart: 0,
  killedAfterFinish: 0,
  maxKillsInOneRun: 0,
};
// The runs are separate `agency` processes replaying the cassette as recorded, so the site must be at the recorded
// address (the demo, which runs in-process, serves it on any free port instead).
const site = await startSite(RECORDED_PORT);
try {
  const began = Date.now();
  const reference = await freshRoot('reference');
  const referenceOut = await promisify(execFile)(process.execPath, args('run', reference), {
    maxBuffer: 64 * 1024 * 1024,
  });
  const referenceDuration = Date.now() - began;
  const expected = resultOf(referenceOut.stdout).deliverables.map((file) => file.sha256);
  const totalFrames = (await journalOf(reference)).frames.length;

  for (let run = 0; stats.killPoints < iterations; run++) {
    stats.runs++;
    const root = await freshRoot(`run-${run}`);
    let kills = 0;
    for (let attempt = 0; ; attempt++) {
      const started = await readFile(join(root, 'progress', 'spec.json')).then(
        () => true,
        () => false,
      );
      if (attempt > 0 && started) stats.resumes++;
      const mode = started ? 'resume' : 'run';
      const killThisTime = stats.killPoints < iterations && kills < 4;
      const child = spawn(process.execPath, args(mode, root), { stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      if (killThisTime) await waitForKillPoint(root, exited, totalFrames, referenceDuration);
      if (killThisTime && child.exitCode === null) {
        child.kill('SIGKILL');
        await exited;
        kills++;
        stats.killPoints++;
        await checkAfterKill(root, `run ${run}, kill ${kills}`);
        continue;
      }
      const code = await exited;
      if (killThisTime) stats.killedAfterFinish++;
      if (code !== 0) {
        failures.push(`run ${run}: ${mode} exited ${code}: ${stderr.trim().split('\n').at(-1) ?? ''}`);
        break;
      }
      // A kill that landed after the finish frame was durable leaves a finished run: resume says so and exits 0.
      const result = stdout.includes('"result"')
        ? resultOf(stdout)
        : {
            finishReason: (await journalOf(root)).frames.at(-1)?.data?.reason as string,
            deliverables: await deliverablesOf(root),
          };
      const got = result.deliverables.map((file) => file.sha256);
      if (result.finishReason !== 'completed' || JSON.stringify(got) !== JSON.stringify(expected)) {
        failures.push(
          `run ${run}: finished ${result.finishReason} with deliverables ${JSON.stringify(got)}, expected ${JSON.stringify(expected)}`,
        );
      }
      const { frames, torn } = await journalOf(root);
      if (torn) failures.push(`run ${run}: a torn line remains after the run finished`);
      const strays = await tempFilesUnder(join(root, 'progress'));
      if (strays.length > 0)
        failures.push(`run ${run}: temp files remain after the run finished: ${strays.join(', ')}`);
      if (frames.some((frame, index) => frame.seq !== index + 1)) failures.push(`run ${run}: seq is not 1..n`);
      break;
    }
    stats.maxKillsInOneRun = Math.max(stats.maxKillsInOneRun, kills);
    process.stdout.write(
      `\rkill points ${stats.killPoints}/${iterations}, runs ${stats.runs}, failures ${failures.length}   `,
    );
  }
} finally {
  site.server.close();
}

// One kill in ten lands during start-up; the rest land after a random number of journal lines, plus a few
// milliseconds, so they fall anywhere in the run: inside model calls, tool calls, fsyncs and state writes.
async function waitForKillPoint(
  root: string,
  exited: Promise<unknown>,
  totalFrames: number,
  duration: number,
): Promise<void> {
  let done = false;
  void exited.then(() => (done = true));
  if (random() < 0.1) {
    await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, random() * duration))]);
    return;
  }
  const now = (await readFile(join(root, 'progress', 'events.ndjson'), 'utf8').catch(() => '')).split('\n').length - 1;
  const target = now + Math.floor(random() * Math.max(1, totalFrames + 4 - now));
  for (let lines = now; lines < target && !done;) {
    await new Promise((resolve) => setTimeout(resolve, 1));
    lines = (await readFile(join(root, 'progress', 'events.ndjson'), 'utf8').catch(() => '')).split('\n').length - 1;
  }
  await new Promise((resolve) => setTimeout(resolve, random() * 4));
}

// Temp files of interrupted atomic writes; a resumed run removes them (approvals excepted: other processes write there).
async function tempFilesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile() && isTempFileName(entry.name))
    .map((entry) => join(entry.parentPath, entry.name))
    .filter((file) => !file.includes(`${sep}approvals${sep}`));
}

// The checks made right after a kill, before the next resume.
async function checkAfterKill(root: string, where: string): Promise<void> {
  const stateText = await readFile(join(root, 'progress', 'state.json'), 'utf8').catch(() => undefined);
  if (stateText === undefined) {
    stats.killedBeforeStart++;
    return;
  }
  const state = stateSchema.safeParse(JSON.parse(stateText));
  if (!state.success) {
    failures.push(`${where}: state.json does not parse: ${state.error.message}`);
    return;
  }
  const { frames, torn } = await journalOf(root);
  if (torn) stats.tornLines++;
  const acknowledged = frames.filter((frame) => frame.seq <= state.data.last_seq);
  if (acknowledged.length !== state.data.last_seq)
    failures.push(`${where}: state says seq ${state.data.last_seq} is durable, the journal has ${acknowledged.length}`);
  const fold = foldJournal(frames, state.data.last_seq);
  if (fold.usage.totalTokens !== state.data.usage.total_tokens)
    failures.push(`${where}: state usage ${state.data.usage.total_tokens} ≠ journal fold ${fold.usage.totalTokens}`);
  if (fold.planSig !== state.data.plan_sig && state.data.plan_sig !== null)
    failures.push(`${where}: state plan_sig disagrees with the journal`);
  // Remember the acknowledged frames; they must survive the resume unchanged.
  pendingChecks.push({ root, where, acknowledged });
}

for (const check of pendingChecks) {
  const { frames } = await journalOf(check.root);
  const kept = frames.slice(0, check.acknowledged.length);
  if (JSON.stringify(kept) !== JSON.stringify(check.acknowledged))
    failures.push(`${check.where}: acknowledged events changed or were lost`);
}

const summary = {
  iterations,
  seed: Number(values.seed),
  ...stats,
  failures: failures.length,
  failureDetails: failures.slice(0, 20),
};
process.stdout.write(`\n${JSON.stringify(summary, null, 2)}\n`);
if (values.json) await writeFile(values.json, `${JSON.stringify(summary, null, 2)}\n`);
process.exitCode = failures.length === 0 ? 0 : 1;
