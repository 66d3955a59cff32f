import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createRedactor } from '../../core/redact.ts';
import { readJournal } from '../../task/journal/read-journal.ts';
import type { FunctionStep } from './types.ts';
import { resumeWorkflow, runWorkflow } from './durable-run.ts';
import { createWorkflow } from './workflow.ts';

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'agency-wf-'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const events = () => join(root, 'progress', 'events.ndjson');
const frames = async () => (await readJournal(events())).frames;

function approvalFlow(ran: string[] = []) {
  const step = (id: string, extra: Partial<FunctionStep> = {}): FunctionStep => ({
    id,
    run: () => (ran.push(id), `${id} done`),
    ...extra,
  });
  return createWorkflow({
    name: 'approval',
    steps: [
      step('draft'),
      step('ask', {
        dependsOn: ['draft'],
        run: ({ resumeData, suspend }) => (ran.push('ask'), resumeData ?? suspend({ question: 'Send it?' })),
      }),
      step('send', {
        dependsOn: ['ask'],
        run: ({ outputs }) => (ran.push('send'), `sent after ${JSON.stringify(outputs.ask)}`),
      }),
    ],
  });
}

describe('runWorkflow and resumeWorkflow', () => {
  it('journals each step, suspends, and resumes with input without running finished steps again', async () => {
    const ran: string[] = [];
    const first = await runWorkflow(approvalFlow(ran), { input: 'refund' }, { root });
    expect(first.finishReason).toBe('suspended');
    const written = await frames();
    expect(written.map((f) => [f.type, f.step ?? null])).toEqual([
      ['run.started', null],
      ['phase.start', 'draft'],
      ['phase.finish', 'draft'],
      ['phase.start', 'ask'],
      ['finish', 'ask'],
    ]);
    expect(written.at(-1)?.data).toMatchObject({
      reason: 'stopped',
      suspended: { step: 'ask', payload: { question: 'Send it?' } },
    });

    // A new definition object, as a new process would build it.
    const second = await resumeWorkflow(approvalFlow(ran), { root, input: { yes: true } });
    expect(second.finishReason).toBe('stop');
    expect(second.output).toBe('sent after {"yes":true}');
    expect(ran).toEqual(['draft', 'ask', 'ask', 'send']);
    const all = await frames();
    expect(all.map((f) => f.seq)).toEqual(all.map((_, i) => i + 1));
    expect(all.find((f) => f.type === 'run.resumed')?.data).toMatchObject({
      step: 'ask',
      input: { yes: true },
      after: 'stopped',
    });
    expect(all.at(-1)?.data).toMatchObject({ reason: 'completed', output: 'sent after {"yes":true}' });
    await expect(resumeWorkflow(approvalFlow(), { root })).rejects.toThrow(/already completed/);
  });

  it('resumes through the suspended handle, in the same process', async () => {
    const first = await runWorkflow(approvalFlow(), { input: '' }, { root });
    const done = await first.suspended!.resume('ok');
    expect(done.output).toBe('sent after "ok"');
  });

  it('retries a step that failed when the run is resumed', async () => {
    let broken = true;
    const wf = () =>
      createWorkflow({
        name: 'flaky',
        steps: [
          { id: 'a', run: () => 'a' },
          { id: 'b', dependsOn: ['a'], run: () => (broken ? Promise.reject(new Error('no network')) : 'b') },
        ],
      });
    const failed = await runWorkflow(wf(), { input: '' }, { root });
    expect(failed.error?.message).toMatch(/^Step "b" failed after 1 attempt\(s\): no network/);
    expect((await frames()).slice(-2).map((f) => [f.type, f.step ?? null])).toEqual([
      ['error', 'b'],
      ['finish', null],
    ]);
    broken = false;
    const done = await resumeWorkflow(wf(), { root });
    expect(done.output).toBe('b');
    expect(done.calls.map((c) => c.name)).toEqual(['b']);
  });

  it('journals a cancelled run, which resumes', async () => {
    const controller = new AbortController();
    const wf = () =>
      createWorkflow({
        name: 'cancel',
        steps: [
          {
            id: 'wait',
            run: ({ signal }) =>
              controller.signal.aborted
                ? 'waited'
                : new Promise((_, reject) => {
                    signal.addEventListener('abort', () => reject(new Error('cancelled')));
                    controller.abort();
                  }),
          },
        ],
      });
    const cancelled = await runWorkflow(wf(), { input: '' }, { root, signal: controller.signal });
    expect(cancelled.finishReason).toBe('aborted');
    expect((await frames()).at(-1)?.data).toMatchObject({ reason: 'cancelled' });
    expect((await resumeWorkflow(wf(), { root })).output).toBe('waited');
  });

  it('redacts secrets in journaled outputs, and the digest still checks on resume', async () => {
    const redactor = createRedactor();
    redactor.register('sk-live-0123456789abcdef');
    const wf = () =>
      createWorkflow({
        name: 'secret',
        steps: [
          { id: 'leak', run: () => 'key sk-live-0123456789abcdef' },
          { id: 'ask', dependsOn: ['leak'], run: ({ resumeData, suspend }) => resumeData ?? suspend('ok?') },
        ],
      });
    await runWorkflow(wf(), { input: '' }, { root, redactor });
    expect(readFileSync(events(), 'utf8')).not.toContain('sk-live-0123456789abcdef');
    const done = await resumeWorkflow(wf(), { root, redactor, input: 'y' });
    expect(done.finishReason).toBe('stop');
  });
});

describe('skipped steps on resume', () => {
  it('journals a skipped branch, and a resumed run does not evaluate its condition again', async () => {
    let checked = 0;
    const wf = () =>
      createWorkflow({
        name: 'skips',
        steps: [
          { id: 'score', run: () => 3 },
          {
            id: 'escalate',
            dependsOn: ['score'],
            when: ({ outputs }) => (checked++, Number(outputs.score) > 5),
            run: () => 'paged',
          },
          { id: 'notify', dependsOn: ['escalate'], run: () => 'notified' },
          { id: 'ask', dependsOn: ['score'], run: ({ resumeData, suspend }) => resumeData ?? suspend('close it?') },
        ],
        output: (outputs) => JSON.stringify(outputs),
      });
    await runWorkflow(wf(), { input: '' }, { root });
    expect(checked).toBe(1);
    const skipped = (await frames()).filter((f) => f.type === 'phase.finish' && f.data?.status === 'skipped');
    expect(skipped.map((f) => f.step)).toEqual(['escalate', 'notify']);
    const done = await resumeWorkflow(wf(), { root, input: 'closed' });
    expect(checked).toBe(1);
    expect(JSON.parse(done.output)).toEqual({ score: 3, escalate: null, notify: null, ask: 'closed' });
  });
});

describe('resuming a malformed or hostile journal', () => {
  it('cuts off a torn last line and says so', async () => {
    await runWorkflow(approvalFlow(), { input: '' }, { root });
    appendFileSync(events(), '{"version":"agent.events.v1","id":"evt_');
    const done = await resumeWorkflow(approvalFlow(), { root, input: 'y' });
    expect(done.finishReason).toBe('stop');
    expect(done.warnings).toEqual([expect.stringMatching(/a torn last line of 39 bytes was cut off/)]);
    expect((await frames()).find((f) => f.type === 'run.resumed')?.data).toMatchObject({ torn_bytes: 39 });
  });

  it('refuses a step output edited on disk, naming the line and the step', async () => {
    await runWorkflow(approvalFlow(), { input: '' }, { root });
    writeFileSync(events(), readFileSync(events(), 'utf8').replace('"output":"draft done"', '"output":"draft forged"'));
    await expect(resumeWorkflow(approvalFlow(), { root, input: 'y' })).rejects.toMatchObject({
      code: 'journal_corrupt',
      message: expect.stringMatching(/events\.ndjson:3: the output of step "draft" does not match its output_digest/),
    });
  });

  it('refuses a finished step the workflow does not have', async () => {
    await runWorkflow(approvalFlow(), { input: '' }, { root });
    writeFileSync(
      events(),
      readFileSync(events(), 'utf8').replace(
        '"step":"draft","step_kind":"function","message":"Step draft finished"',
        '"step":"ghost","step_kind":"function","message":"Step draft finished"',
      ),
    );
    await expect(resumeWorkflow(approvalFlow(), { root })).rejects.toMatchObject({
      code: 'journal_corrupt',
      message: expect.stringMatching(/:3: a finished step "ghost" that the workflow does not have/),
    });
  });

  it('refuses a malformed line before the last', async () => {
    await runWorkflow(approvalFlow(), { input: '' }, { root });
    const lines = readFileSync(events(), 'utf8').split('\n');
    lines[1] = '{not json';
    writeFileSync(events(), lines.join('\n'));
    await expect(resumeWorkflow(approvalFlow(), { root })).rejects.toMatchObject({ code: 'journal_corrupt' });
  });

  it('refuses another workflow definition, a second start, a missing run, and input nobody waits for', async () => {
    await runWorkflow(approvalFlow(), { input: '' }, { root });
    const other = createWorkflow({ name: 'approval', steps: [{ id: 'draft', run: () => 1 }] });
    await expect(resumeWorkflow(other, { root })).rejects.toThrow(
      /started by workflow "approval" with steps \[draft, ask, send\]/,
    );
    await expect(runWorkflow(approvalFlow(), { input: '' }, { root })).rejects.toThrow(/already holds a run/);
    const empty = mkdtempSync(join(tmpdir(), 'agency-wf-empty-'));
    await expect(resumeWorkflow(approvalFlow(), { root: empty })).rejects.toThrow(/holds no run to resume/);
    rmSync(empty, { recursive: true, force: true });
    const onlyA = () => createWorkflow({ name: 'a', steps: [{ id: 'a', run: () => Promise.reject(new Error('x')) }] });
    const failedRoot = mkdtempSync(join(tmpdir(), 'agency-wf-fail-'));
    await runWorkflow(onlyA(), { input: '' }, { root: failedRoot });
    await expect(resumeWorkflow(onlyA(), { root: failedRoot, input: 'y' })).rejects.toThrow(
      /no step of this run is waiting/,
    );
    rmSync(failedRoot, { recursive: true, force: true });
  });

  it('refuses a governed task journal', async () => {
    await runWorkflow(approvalFlow(), { input: '' }, { root });
    writeFileSync(events(), readFileSync(events(), 'utf8').replace('"kind":"workflow"', '"kind":"task"'));
    await expect(resumeWorkflow(approvalFlow(), { root })).rejects.toThrow(/not a workflow run's/);
  });

  it('refuses a root another live process holds', async () => {
    const { mkdirSync } = await import('node:fs');
    mkdirSync(join(root, 'progress'), { recursive: true });
    writeFileSync(
      join(root, 'progress', '.lock'),
      JSON.stringify({
        pid: process.ppid,
        host: (await import('node:os')).hostname(),
        started_at: new Date().toISOString(),
      }),
    );
    await expect(runWorkflow(approvalFlow(), { input: '' }, { root })).rejects.toMatchObject({ code: 'task_locked' });
  });
});
