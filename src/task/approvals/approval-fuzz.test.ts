// Approval fuzzing. Acceptance: no approval is ever acted on without a valid approved decision for that request.
// Every case is generated from APPROVAL_FUZZ_SEED and its index, so a failure names a case that can be replayed.
import { mkdtemp, open, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgencyError } from '../../core/errors.ts';
import type { ApprovalDecision, ApprovalRequest } from '../contracts/approvals.ts';
import type { ApprovalOutcome, InvalidDecision } from './broker.ts';
import { decide } from './decide.ts';
import { createFileBroker } from './file-broker.ts';
import { createInMemoryBroker } from './in-memory-broker.ts';
import { formatJson } from './internal/approval-files.ts';
import {
  createRng,
  type Mutation,
  mutate,
  mutationsFor,
  type Rng,
  sampleRequest,
  validDecision,
} from '../../../test/support/decision-corpus.ts';

const SEED = Number(process.env.APPROVAL_FUZZ_SEED ?? 0xa9e7c1);
const FILE_CASES = 160;
const MEMORY_CASES = 1000;
const LANES = 8;
const POLL_MS = 5;
const T0 = Date.parse('2025-01-01T12:00:00Z');

type Final = 'approved' | 'denied' | 'expired-by-human' | 'expire' | 'abort';
type Writer = 'rename' | 'chunks' | 'decide' | 'before-start' | 'none';
type Noise = 'sibling' | 'temp' | 'backup' | 'ghost';
type Spoiled = { mutation: Mutation; text: string };
type Case = {
  index: number;
  request: ApprovalRequest;
  sibling: ApprovalRequest;
  before?: Spoiled;
  during: (Spoiled | Noise)[];
  final: Final;
  writer: Writer;
  after: 'none' | 'identical' | 'different';
};

function generate(index: number): Case {
  const rng = createRng(Math.imul(SEED, 0x9e3779b1) ^ index);
  const request = sampleRequest(rng, `req_${index.toString().padStart(4, '0')}_${rng.hex(6)}`, T0);
  const sibling = sampleRequest(rng, `req_sib_${rng.hex(8)}`, T0);
  const valid = validDecision(request, 'approved', 'ana@example.com', T0);
  const spoil = (): Spoiled => {
    const mutation = rng.pick(mutationsFor(request));
    return { mutation, text: mutate(rng, mutation, request, valid) };
  };
  const final = rng.pick<Final>(['approved', 'approved', 'approved', 'denied', 'expired-by-human', 'expire', 'abort']);
  const decided = final === 'approved' || final === 'denied' || final === 'expired-by-human';
  const writers: Writer[] =
    final === 'expired-by-human'
      ? ['rename', 'chunks', 'before-start']
      : ['rename', 'chunks', 'decide', 'before-start'];
  const writer = decided ? rng.pick(writers) : 'none';
  return {
    index,
    request,
    sibling,
    ...(writer !== 'before-start' && rng.next() < 0.4 ? { before: spoil() } : {}),
    during:
      writer === 'before-start'
        ? []
        : Array.from({ length: rng.int(4) }, () =>
            rng.next() < 0.75 ? spoil() : rng.pick<Noise>(['sibling', 'temp', 'backup', 'ghost']),
          ),
    final,
    writer,
    after: decided ? rng.pick(['none', 'identical', 'different'] as const) : 'none',
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
async function until(condition: () => boolean, what: string): Promise<void> {
  for (let waited = 0; !condition(); waited += 2) {
    if (waited > 3_000) throw new Error(`timed out waiting for ${what}`);
    await sleep(2);
  }
}

async function writeAtomically(file: string, text: string): Promise<void> {
  await writeFile(`${file}.writing`, text);
  await rename(`${file}.writing`, file);
}

// A concurrent writer that writes in place, a few bytes at a time, as an editor or `echo >>` would.
async function writeInChunks(rng: Rng, file: string, text: string): Promise<void> {
  const handle = await open(file, 'w');
  try {
    for (let at = 0; at < text.length;) {
      const size = 1 + rng.int(Math.max(2, Math.floor(text.length / 4)));
      await handle.write(text.slice(at, at + size));
      at += size;
      await sleep(rng.int(3));
    }
  } finally {
    await handle.close();
  }
}

type Tally = {
  cases: number;
  invalidFiles: number;
  distinctInvalid: number;
  reports: number;
  noise: number;
  falseActions: number;
  outcomes: Record<string, number>;
};

type Run = {
  c: Case;
  rng: Rng;
  progress: string;
  dir: string;
  file: string;
  broker: ReturnType<typeof createFileBroker>;
  reports: InvalidDecision[];
  expected: Spoiled[];
  seen: Set<string>;
  tally: Tally;
};

async function runFileCase(root: string, c: Case, tally: Tally): Promise<void> {
  const progress = path.join(root, `case-${c.index}`, 'progress');
  let clock = T0;
  const broker = createFileBroker(progress, { mode: 'file', now: () => clock, pollMs: POLL_MS });
  await broker.submit(c.request);
  await broker.submit(c.sibling);
  const dir = path.join(progress, 'approvals', 'decisions');
  const file = path.join(dir, `${c.request.id}.json`);
  const run: Run = {
    c,
    rng: createRng(SEED ^ (c.index * 7919)),
    progress,
    dir,
    file,
    broker,
    reports: [],
    expected: [],
    seen: new Set(),
    tally,
  };
  const decision = validDecision(
    c.request,
    c.final === 'denied' ? 'denied' : c.final === 'expired-by-human' ? 'expired' : 'approved',
    'ana@example.com',
    T0 + 1000,
  );

  // Files that are there before the watcher starts.
  if (c.before !== undefined) await writeAtomically(file, c.before.text);
  if (c.writer === 'before-start') await writeAtomically(file, formatJson(decision));
  const controller = new AbortController();
  let outcome: ApprovalOutcome | undefined;
  let failure: unknown;
  const waiting = broker
    .await(c.request.id, { signal: controller.signal, onInvalid: (bad) => run.reports.push(bad) })
    .then(
      (value) => (outcome = value),
      (error: unknown) => (failure = error),
    );
  if (c.before !== undefined) await expectReport(run, c.before);
  for (const step of c.during) {
    if (typeof step === 'string') await writeNoise(run, step);
    else await spoil(run, step);
  }
  expect(outcome, `case ${c.index} acted before any valid decision`).toBeUndefined();

  if (c.final === 'expire') clock = Date.parse(c.request.expires_at) + run.rng.int(10_000);
  if (c.final === 'abort') controller.abort();
  if (c.writer === 'rename') await writeAtomically(file, formatJson(decision));
  if (c.writer === 'chunks') await writeInChunks(run.rng, file, JSON.stringify(decision, null, run.rng.int(3)));
  if (c.writer === 'decide' && decision.decision !== 'expired') {
    await decide(progress, c.request.id, decision.decision, { by: 'ana@example.com', now: () => T0 + 1000 });
  }
  await waiting;
  tally.cases++;
  tally.outcomes[outcome?.decision ?? 'aborted'] = (tally.outcomes[outcome?.decision ?? 'aborted'] ?? 0) + 1;
  if (outcome?.decision === 'approved' && c.final !== 'approved') tally.falseActions++;
  await checkOutcome(run, decision, outcome, failure);
  checkReports(run);
  if (c.after !== 'none' && outcome !== undefined) await checkDuplicate(c, broker, file, decision, outcome);
}

async function spoil(run: Run, spoiled: Spoiled): Promise<void> {
  await writeAtomically(run.file, spoiled.text);
  await expectReport(run, spoiled);
}

// A report is due for every invalid content not seen before in this case.
async function expectReport(run: Run, spoiled: Spoiled): Promise<void> {
  run.tally.invalidFiles++;
  if (run.seen.has(spoiled.text)) return;
  run.seen.add(spoiled.text);
  run.expected.push(spoiled);
  run.tally.distinctInvalid++;
  const what = `a report on ${spoiled.mutation.name} (case ${run.c.index})`;
  await until(() => run.reports.length >= run.expected.length, what);
}

// Files next to the decision file that must never be taken for it.
async function writeNoise(run: Run, noise: Noise): Promise<void> {
  const { c, dir, file } = run;
  run.tally.noise++;
  const approveThis = formatJson(validDecision(c.request, 'approved', 'ana', T0));
  if (noise === 'sibling') {
    await writeAtomically(
      path.join(dir, `${c.sibling.id}.json`),
      formatJson(validDecision(c.sibling, 'approved', 'ana', T0)),
    );
  }
  if (noise === 'temp')
    await writeFile(path.join(dir, `.${c.request.id}.json.${run.rng.hex(6)}.agency-tmp`), approveThis);
  if (noise === 'backup') await writeFile(`${file}.bak`, approveThis);
  if (noise === 'ghost') {
    await writeAtomically(path.join(dir, 'req_ghost.json'), approveThis.replace(c.request.id, 'req_ghost'));
  }
  await sleep(3 * POLL_MS);
}

async function checkOutcome(
  run: Run,
  decision: ApprovalDecision,
  outcome: ApprovalOutcome | undefined,
  failure: unknown,
): Promise<void> {
  const { c, broker } = run;
  if (c.final === 'abort') {
    expect(AgencyError.hasCode(failure, 'aborted'), `case ${c.index}`).toBe(true);
  } else if (c.final === 'expire') {
    expect(outcome, `case ${c.index}`).toMatchObject({ decision: 'expired', decidedBy: 'agency' });
    const { decision: onFile } = await broker.get(c.request.id);
    expect(onFile, `case ${c.index}`).toMatchObject({ decision: 'expired', approved_by: 'agency' });
  } else {
    expect(outcome, `case ${c.index}`).toMatchObject({ decision: decision.decision, decidedBy: 'ana@example.com' });
  }
  if (c.during.includes('ghost')) {
    expect((await broker.get('req_ghost')).invalid?.problem).toContain('no request req_ghost exists');
    await expect(broker.await('req_ghost')).rejects.toSatisfy((error) =>
      AgencyError.hasCode(error, 'approval_not_found'),
    );
  }
}

// Every invalid file was reported once, naming the file and the problem; a writer mid-write may add reports.
function checkReports({ c, reports, expected, tally }: Run): void {
  tally.reports += reports.length;
  if (c.writer !== 'chunks') expect(reports.length, `case ${c.index}`).toBe(expected.length);
  expected.forEach((spoiled, k) => {
    const label = `case ${c.index}: ${spoiled.mutation.name}`;
    expect(reports[k], label).toMatchObject({
      id: c.request.id,
      file: `progress/approvals/decisions/${c.request.id}.json`,
    });
    expect(reports[k]?.problem, label).toContain(spoiled.mutation.expect);
  });
}

// A decision that arrives after one was acted on: the same one changes nothing; a different one is reported.
async function checkDuplicate(
  c: Case,
  broker: ReturnType<typeof createFileBroker>,
  file: string,
  decision: ApprovalDecision,
  outcome: ApprovalOutcome,
): Promise<void> {
  const flipped = decision.decision === 'approved' ? 'denied' : 'approved';
  const second = c.after === 'identical' ? decision : { ...decision, decision: flipped };
  await writeAtomically(file, JSON.stringify(second));
  const reports: InvalidDecision[] = [];
  expect(await broker.await(c.request.id, { onInvalid: (bad) => reports.push(bad) })).toEqual(outcome);
  expect(reports.map((bad) => bad.problem.startsWith('conflicting decision'))).toEqual(
    c.after === 'identical' ? [] : [true],
  );
}

describe('approval fuzz: file broker', () => {
  let root: string;
  beforeAll(async () => {
    root = await mkdtemp(path.join(tmpdir(), 'agency-approval-fuzz-'));
  });
  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it(`acts on no decision that is not valid (${FILE_CASES} generated cases, seed ${SEED})`, async () => {
    const cases = Array.from({ length: FILE_CASES }, (_, index) => generate(index));
    const tally: Tally = {
      cases: 0,
      invalidFiles: 0,
      distinctInvalid: 0,
      reports: 0,
      noise: 0,
      falseActions: 0,
      outcomes: {},
    };
    let next = 0;
    const lane = async () => {
      for (let c = cases[next++]; c !== undefined; c = cases[next++]) await runFileCase(root, c, tally);
    };
    await Promise.all(Array.from({ length: LANES }, lane));
    console.log(`approval fuzz (file): ${JSON.stringify(tally)}`);
    expect(tally.cases).toBe(FILE_CASES);
    expect(tally.falseActions).toBe(0);
    expect(tally.invalidFiles).toBeGreaterThan(FILE_CASES);
  });
});

describe('approval fuzz: in-memory broker', () => {
  it(`follows the same rules (${MEMORY_CASES} generated cases)`, async () => {
    let falseActions = 0;
    for (let index = 0; index < MEMORY_CASES; index++) {
      const c = generate(FILE_CASES + index);
      const broker = createInMemoryBroker({ now: () => T0 });
      await broker.submit(c.request);
      const reports: InvalidDecision[] = [];
      const waiting = broker.await(c.request.id, { onInvalid: (bad) => reports.push(bad) });
      const spoiled = [c.before, ...c.during].filter((step): step is Spoiled => typeof step === 'object');
      for (const step of spoiled)
        expect(broker.decide(c.request.id, step.text)?.problem).toContain(step.mutation.expect);
      expect(reports.length).toBe(new Set(spoiled.map((step) => step.text)).size);
      const approve = c.final === 'approved';
      broker.decide(c.request.id, validDecision(c.request, approve ? 'approved' : 'denied', 'ana', T0));
      const outcome = await waiting;
      if (outcome.decision === 'approved' && !approve) falseActions++;
      expect(outcome.decision).toBe(approve ? 'approved' : 'denied');
    }
    expect(falseActions).toBe(0);
  });
});
