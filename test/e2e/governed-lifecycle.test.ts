// Every run that was not finished on purpose can be resumed, and a stop works in every state.
import { writeFileSync } from 'node:fs';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AgencyError } from '../../src/core/errors.ts';
import { approvalRequestSchema } from '../../src/task/contracts/approvals.ts';
import type { EventFrame } from '../../src/task/contracts/events.ts';
import { readJournal } from '../../src/task/journal/read-journal.ts';
import { createRunner, type Runner } from '../../src/task/runner.ts';
import { FIXTURE_PLAN, fixtureTools, makeTaskFolder, phaseModel } from '../support/governed-fixture.ts';

async function frames(root: string): Promise<EventFrame[]> {
  return (await readJournal(join(root, 'progress', 'events.ndjson'))).frames;
}

const auto = (model = phaseModel()) =>
  createRunner({ model, tools: (paths) => fixtureTools(paths), approvals: 'auto' });

async function resumeToEnd(root: string, runner: Runner = auto(), options = {}) {
  return runner.run(await runner.resume(root, options), { view: 'full' });
}

async function pendingRequest(root: string): Promise<string> {
  const dir = join(root, 'progress', 'approvals', 'requests');
  for (let i = 0; i < 200; i++) {
    const names = (await readdir(dir).catch((): string[] => [])).filter(
      (name) => name.endsWith('.json') && !name.startsWith('.'),
    );
    const decided = await readdir(join(root, 'progress', 'approvals', 'decisions')).catch((): string[] => []);
    const open = names.find((name) => !decided.includes(name));
    if (open) return open.slice(0, -'.json'.length);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error('no approval request appeared');
}

describe('a stopped run can be resumed to the end', () => {
  it('after a budget stop, with the budget raised on resume (journaled with who and when)', async () => {
    const root = await makeTaskFolder();
    const first = await auto().doTask(root, { budgets: { maxIterations: 2, verifyReserve: 0.2 } });
    expect(first.finishReason).toBe('budget.iterations');
    // Without more budget (or with the same) it stops again at once, and no change is journaled.
    expect((await resumeToEnd(root)).finishReason).toBe('budget.iterations');
    expect((await resumeToEnd(root, auto(), { budgets: { maxIterations: 2 } })).finishReason).toBe('budget.iterations');
    expect((await frames(root)).some((frame) => frame.type === 'budget.changed')).toBe(false);
    const result = await resumeToEnd(root, auto(), { budgets: { maxIterations: 50 }, by: 'ana' });
    expect(result.finishReason).toBe('completed');
    const changes = (await frames(root)).filter((frame) => frame.type === 'budget.changed');
    expect(changes).toHaveLength(1);
    // Only the budget given changes: the Verify reserve the run started with stays.
    expect(changes[0]?.data).toMatchObject({
      by: 'ana',
      previous: { max_iterations: 2, verify_reserve: 0.2 },
      limits: { max_iterations: 50, verify_reserve: 0.2 },
    });
    expect(changes[0]?.message).toBe('Budgets changed by ana: max_iterations 2 → 50');
    expect(JSON.parse(await readFile(join(root, 'progress', 'spec.json'), 'utf8')).budgets.max_iterations).toBe(50);
  });

  it('after an error: the failed step is tried again', async () => {
    const root = await makeTaskFolder();
    let fail = true;
    const flaky = phaseModel({
      verify: () => {
        if (fail) throw new AgencyError('model_fatal', 'the provider refused the request');
        return { text: JSON.stringify({ criteria: [{ id: 'a1', passed: true, evidence: 'exists' }] }) };
      },
    });
    expect((await auto(flaky).doTask(root)).finishReason).toBe('error');
    fail = false;
    const result = await resumeToEnd(root, auto(flaky));
    expect(result).toMatchObject({ finishReason: 'completed', verified: true });
    expect((await frames(root)).find((frame) => frame.type === 'run.resumed')?.data).toMatchObject({ after: 'error' });
  });

  it('after an expired plan approval: a new request is written, and approving it finishes the run', async () => {
    const root = await makeTaskFolder();
    let clock = Date.parse('2026-01-01T00:00:00Z');
    const runner = () =>
      createRunner({
        model: phaseModel(),
        tools: (paths) => fixtureTools(paths),
        approvals: 'file',
        deps: { now: () => clock },
      });
    const first = runner();
    const running = first.doTask(root, { approvals: { expiresInMs: 60_000 } });
    const expiredId = await pendingRequest(root);
    clock += 61_000;
    expect((await running).finishReason).toBe('approval.expired');

    const second = runner();
    const resumed = second.run(await second.resume(root));
    const id = await pendingRequest(root);
    expect(id).not.toBe(expiredId);
    const request = approvalRequestSchema.parse(
      JSON.parse(await readFile(join(root, 'progress', 'approvals', 'requests', `${id}.json`), 'utf8')),
    );
    await writeFile(
      join(root, 'progress', 'approvals', 'decisions', `${id}.json`),
      JSON.stringify({
        id,
        decision: 'approved',
        approved_by: 'ana',
        timestamp: new Date(clock).toISOString(),
        plan_sig: request.type === 'plan' ? request.plan_sig : '',
      }),
    );
    expect((await resumed).finishReason).toBe('completed');
  });

  it('after a plan the model could not get right: the draft fixed by hand is signed and goes to approval', async () => {
    const root = await makeTaskFolder();
    const broken = phaseModel({ plan: () => ({ text: '{"goal": "half a plan", "steps": "none"}' }) });
    const first = await auto(broken).doTask(root, {}, { view: 'full' });
    expect(first.finishReason).toBe('error');
    expect(first.error?.message).toMatch(/Fix progress\/plan\/draft\.json .* then run `agency resume`/s);
    const draft = join(root, 'progress', 'plan', 'draft.json');
    expect(JSON.parse(await readFile(draft, 'utf8'))).toMatchObject({ goal: 'half a plan' });
    // Resuming before the fix says what is still wrong; after it, the run goes on.
    const early = await resumeToEnd(root, auto(broken));
    expect(early.error?.message).toMatch(/draft\.json is not a valid plan yet/);
    expect(early.error?.message).toContain('progress/plan/draft.json');
    expect(early.error?.message).not.toContain('(answer)');
    // Written like every other plan file, with its "version".
    await writeFile(
      draft,
      JSON.stringify({ version: 'plan.v1', ...FIXTURE_PLAN, goal: 'Summarise task/input.txt (fixed)' }),
    );
    const result = await resumeToEnd(root, auto(broken));
    expect(result.finishReason).toBe('completed');
    const proposed = (await frames(root)).find((frame) => frame.type === 'plan.proposed');
    expect(proposed?.data?.origin).toMatch(/draft\.json fixed by hand/);
  });

  it.each(['completed', 'approval.denied'] as const)('refuses to resume a run that ended with %s', async (reason) => {
    const root = await makeTaskFolder();
    const runner = createRunner({
      model: phaseModel(),
      tools: (paths) => fixtureTools(paths),
      approvals: reason === 'completed' ? 'auto' : 'file',
    });
    const running = runner.doTask(root);
    if (reason === 'approval.denied') {
      const id = await pendingRequest(root);
      const request = approvalRequestSchema.parse(
        JSON.parse(await readFile(join(root, 'progress', 'approvals', 'requests', `${id}.json`), 'utf8')),
      );
      await writeFile(
        join(root, 'progress', 'approvals', 'decisions', `${id}.json`),
        JSON.stringify({
          id,
          decision: 'denied',
          approved_by: 'ana',
          timestamp: new Date().toISOString(),
          plan_sig: request.type === 'plan' ? request.plan_sig : '',
        }),
      );
    }
    expect((await running).finishReason).toBe(reason);
    await expect(auto().resume(root)).rejects.toSatisfy(
      (error) => AgencyError.hasCode(error, 'task_folder_invalid') && (error as Error).message.includes(reason),
    );
  });
});

describe('stopping works while the run waits for an approval', () => {
  it.each([
    ['a STOP file (agency stop)', 'stopped'],
    ['runner.stop(handle, "cancelled") (Ctrl-C)', 'cancelled'],
  ] as const)('%s ends it within a second as %s, journaled and resumable', async (how, reason) => {
    const root = await makeTaskFolder();
    const runner = createRunner({ model: phaseModel(), tools: (paths) => fixtureTools(paths), approvals: 'file' });
    const handle = await runner.startTask(root);
    const running = runner.run(handle);
    await pendingRequest(root);
    const asked = performance.now();
    if (how.startsWith('a STOP')) await writeFile(join(root, 'progress', 'STOP'), 'stop\n');
    else runner.stop(handle, 'cancelled');
    const result = await running;
    expect(performance.now() - asked).toBeLessThan(1_000);
    expect(result.finishReason).toBe(reason);
    expect((await frames(root)).at(-1)).toMatchObject({ type: 'finish', data: { reason } });

    // Resuming removes the STOP file, asks again for the same plan, and finishes once approved (auto here).
    const done = await resumeToEnd(root);
    expect(done.finishReason).toBe('completed');
    const resumed = (await frames(root)).find((frame) => frame.type === 'run.resumed');
    expect(resumed?.data).toMatchObject({ after: reason });
  });
});

describe('a re-approval shows what changed', () => {
  it('lists the tools, steps and acceptance a hand edit changed, and that it was a hand edit', async () => {
    const root = await makeTaskFolder();
    let edited = false;
    const model = phaseModel({
      act: (options) => {
        if (!edited) {
          edited = true;
          const plan = { ...FIXTURE_PLAN, version: 'plan.v1', allowed_tools: ['write_artifact', 'read_input'] };
          plan.steps = [...plan.steps, { id: 's2', title: 'Check the input again', tools: ['read_input'] }];
          writeFileSync(join(root, 'progress', 'plan', 'current.json'), JSON.stringify(plan));
          return { toolCalls: [{ id: 'w0', name: 'write_artifact', input: { name: 'x.md', text: 'x' } }] };
        }
        return options.prompt.at(-1)?.role === 'tool'
          ? { text: 'Wrote artifacts/summary.md.' }
          : { toolCalls: [{ id: 'w1', name: 'write_artifact', input: { name: 'summary.md', text: 'summary\n' } }] };
      },
    });
    const result = await auto(model).doTask(root);
    expect(result.finishReason).toBe('completed');
    const requests = await readdir(join(root, 'progress', 'approvals', 'requests'));
    const plans = await Promise.all(
      requests.map(async (name) =>
        approvalRequestSchema.parse(
          JSON.parse(await readFile(join(root, 'progress', 'approvals', 'requests', name), 'utf8')),
        ),
      ),
    );
    const second = plans.find((request) => request.type === 'plan' && request.changes);
    expect(second?.type === 'plan' && second.changes).toMatchObject({
      origin: 'edited by hand after approval',
      tools_added: ['read_input'],
      tools_removed: [],
      steps_added: ['s2'],
    });
    expect(second?.rationale).toMatch(/tools \+read_input; steps added: s2 \(edited by hand after approval\)/);
  });
});
