import { execFile, spawn } from 'node:child_process';
import { mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import type { EventFrame } from '../../src/task/contracts/events.ts';
import { stateSchema } from '../../src/task/contracts/state.ts';
import { foldJournal } from '../../src/task/journal-fold.ts';
import { readJournal } from '../../src/task/journal/read-journal.ts';
import { createRunner } from '../../src/task/runner.ts';
import { ScriptedModel } from '../../src/testing/scripted-model.ts';
import { fixtureTools, makeTaskFolder, phaseModel } from '../support/governed-fixture.ts';

const run = promisify(execFile);
const child = join(import.meta.dirname, '../support/governed-child.ts');

async function frames(root: string): Promise<EventFrame[]> {
  return (await readJournal(join(root, 'progress', 'events.ndjson'))).frames;
}

// A model that never stops asking for tools: every budget must catch it.
const runaway = () =>
  new ScriptedModel(
    (options) => {
      const text = JSON.stringify(options.prompt.at(-1));
      if (text.includes('Phase: PLAN') || text.includes('allowed_tools')) {
        return JSON.stringify({
          goal: 'loop',
          steps: [{ id: 's', title: 't' }],
          allowed_tools: ['read_input'],
          acceptance: [{ id: 'a', criterion: 'c' }],
        });
      }
      return {
        toolCalls: [{ name: 'read_input', input: { name: 'input.txt' } }],
        usage: { inputTokens: 1_000, outputTokens: 100 },
      };
    },
    { modelId: 'gpt-4o-mini' },
  );

describe('budgets stop a runaway model with the right reason', () => {
  it.each([
    [{ maxIterations: 5 }, 'budget.iterations'],
    [{ maxConsecutiveToolIterations: 3 }, 'budget.consecutive_tool_iterations'],
    [{ maxTotalTokens: 4_000 }, 'budget.tokens'],
    [{ maxCostUsd: 0.0005 }, 'budget.cost'],
    [{ maxWallClockMs: 150 }, 'budget.wall_clock'],
  ] as const)('%j stops with %s', async (budgets, reason) => {
    const root = await makeTaskFolder();
    const model = runaway();
    if ('maxWallClockMs' in budgets) {
      const original = model.doGenerate.bind(model);
      model.doGenerate = async (options) => {
        await new Promise((resolve) => setTimeout(resolve, 20));
        return original(options);
      };
    }
    const result = await createRunner({ model, tools: (paths) => fixtureTools(paths), approvals: 'auto' }).doTask(
      root,
      { budgets },
    );
    expect(result.finishReason).toBe(reason);
    const journal = await frames(root);
    expect(journal.filter((frame) => frame.type === 'budget.hit').length).toBeLessThanOrEqual(1);
    const calls = journal.filter((frame) => frame.type === 'usage.delta').length;
    if ('maxIterations' in budgets) expect(calls).toBe(5);
    if ('maxConsecutiveToolIterations' in budgets) expect(calls).toBe(3);
    // Overspend is at most the one call in flight: 1,100 tokens, $0.00021 at gpt-4o-mini prices.
    if ('maxTotalTokens' in budgets) expect(result.usage.totalTokens).toBeLessThanOrEqual(4_000 + 1_100);
    if ('maxCostUsd' in budgets) expect(result.usage.costUsd).toBeLessThanOrEqual(0.0005 + 0.00021);
    expect(journal.at(-1)).toMatchObject({ type: 'finish', data: { reason }, budgets_remaining: expect.any(Object) });
    const state = stateSchema.parse(JSON.parse(await readFile(join(root, 'progress', 'state.json'), 'utf8')));
    expect(state).toMatchObject({ status: 'stopped', finish_reason: reason });
  });

  it('holds back a share of the budget for Verify', async () => {
    const root = await makeTaskFolder();
    const result = await createRunner({
      model: runaway(),
      tools: (paths) => fixtureTools(paths),
      approvals: 'auto',
    }).doTask(root, {
      budgets: { maxIterations: 10, verifyReserve: 0.5 },
    });
    expect(result.finishReason).toBe('budget.iterations');
    expect((await frames(root)).filter((frame) => frame.type === 'usage.delta')).toHaveLength(5);
  });
});

describe('stopping a run', () => {
  it('stops at the next boundary when progress/STOP appears', async () => {
    const root = await makeTaskFolder();
    const runner = createRunner({ model: phaseModel(), tools: (paths) => fixtureTools(paths), approvals: 'auto' });
    runner.subscribe((frame) => {
      if (frame.type === 'plan.proposed') void writeFile(join(root, 'progress', 'STOP'), '');
    });
    const result = await runner.doTask(root);
    expect(result.finishReason).toBe('stopped');
    expect((await frames(root)).some((frame) => frame.type === 'phase.start' && frame.step?.endsWith('-act'))).toBe(
      false,
    );
  });

  it('stops at once when stop() is called mid-step', async () => {
    const root = await makeTaskFolder();
    const model = phaseModel({ gather: () => ({ delayMs: 5_000, text: 'slow' }) });
    const runner = createRunner({ model, tools: (paths) => fixtureTools(paths), approvals: 'auto' });
    const handle = await runner.startTask(root);
    setTimeout(() => runner.stop(handle), 50);
    const started = Date.now();
    const result = await runner.run(handle);
    expect(result.finishReason).toBe('stopped');
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('runs one step at a time with stepOnce', async () => {
    const root = await makeTaskFolder();
    const runner = createRunner({ model: phaseModel(), tools: (paths) => fixtureTools(paths), approvals: 'auto' });
    const handle = await runner.startTask(root);
    const first = await runner.stepOnce(handle);
    expect(first).toEqual({ done: false, step: '0001-gather' });
    expect(await runner.stepOnce(handle)).toEqual({ done: false, step: '0002-record-findings' });
    let outcome = await runner.stepOnce(handle);
    while (!outcome.done) outcome = await runner.stepOnce(handle);
    expect(outcome.result.finishReason).toBe('completed');
  });
});

describe('folders, locks and damaged files', () => {
  it('refuses a missing or foreign folder with a clear message', async () => {
    const runner = createRunner({ model: phaseModel() });
    await expect(runner.doTask('/nonexistent/task')).rejects.toMatchObject({
      code: 'task_folder_invalid',
      message: expect.stringContaining('agency init'),
    });
    await expect(runner.doTask(import.meta.dirname)).rejects.toMatchObject({
      message: expect.stringContaining('no task/ directory'),
    });
  });

  it('refuses a second run on the same root while one is active, and takes over a stale lock', async () => {
    const root = await makeTaskFolder();
    const runner = createRunner({ model: phaseModel(), tools: (paths) => fixtureTools(paths), approvals: 'auto' });
    await runner.startTask(root);
    await expect(createRunner({ model: phaseModel() }).resume(root)).rejects.toMatchObject({
      code: 'task_locked',
      message: expect.stringContaining(`pid ${process.pid}`),
    });

    const stale = await makeTaskFolder();
    const first = await createRunner({
      model: phaseModel(),
      tools: (paths) => fixtureTools(paths),
      approvals: 'auto',
    }).startTask(stale);
    await writeFile(
      join(first.progressDir, '.lock'),
      JSON.stringify({ pid: 999_999, host: (await import('node:os')).hostname(), started_at: 'x' }),
    );
    const resumed = createRunner({ model: phaseModel(), tools: (paths) => fixtureTools(paths), approvals: 'auto' });
    const handle = await resumed.resume(stale);
    expect((await resumed.run(handle)).finishReason).toBe('completed');
    expect(
      (await frames(stale)).some(
        (frame) => frame.type === 'warning' && /stale run lock left by pid 999999/.test(frame.message ?? ''),
      ),
    ).toBe(true);
  });

  it('resumes a run killed after writing spec.json and before its first event', async () => {
    const started = await makeTaskFolder();
    const runner = createRunner({ model: phaseModel(), tools: (paths) => fixtureTools(paths), approvals: 'auto' });
    const clean = await runner.doTask(started);
    // All a kill at that moment leaves: progress/ with spec.json and nothing else.
    const root = await makeTaskFolder();
    await mkdir(join(root, 'progress'));
    await writeFile(join(root, 'progress', 'spec.json'), await readFile(join(started, 'progress', 'spec.json')));
    const result = await runner.run(await runner.resume(root));
    expect(result.finishReason).toBe('completed');
    expect(clean.deliverables?.length).toBeGreaterThan(0);
    expect(result.deliverables?.map((file) => file.sha256)).toEqual(clean.deliverables?.map((file) => file.sha256));
    const [first, second] = await frames(root);
    expect(first).toMatchObject({ seq: 1, type: 'run.started' });
    expect(second).toMatchObject({ seq: 2, type: 'run.resumed' });
  });

  it('rebuilds a corrupt state.json from the journal, and explains a corrupt spec.json', async () => {
    const root = await makeTaskFolder();
    const runner = createRunner({ model: phaseModel(), tools: (paths) => fixtureTools(paths), approvals: 'auto' });
    await runner.doTask(root, { budgets: { maxIterations: 1 } });
    await writeFile(join(root, 'progress', 'state.json'), '{"version": "agent.state.v1", "phase": 7');
    // The state is a checkpoint of the journal: resume rebuilds it, and says so.
    const resumer = createRunner({ model: phaseModel(), tools: (paths) => fixtureTools(paths), approvals: 'auto' });
    const result = await resumer.run(await resumer.resume(root), { view: 'full' });
    expect(result.warnings?.join('\n')).toMatch(/state\.json could not be read .*rebuilt it from the journal/);
    expect(stateSchema.parse(JSON.parse(await readFile(join(root, 'progress', 'state.json'), 'utf8'))).task_id).toBe(
      result.taskId,
    );
    await writeFile(join(root, 'progress', 'spec.json'), JSON.stringify({ version: 'task.spec.v1', goal: '' }));
    await expect(createRunner({ model: phaseModel() }).resume(root)).rejects.toMatchObject({
      code: 'state_corrupt',
      message: expect.stringMatching(/spec\.json: .*"goal"/),
    });
  });
});

describe('resume after SIGKILL', () => {
  it('finishes with the same deliverables as an uninterrupted run, losing no acknowledged event', async () => {
    const reference = await makeTaskFolder();
    const clean = JSON.parse((await run(process.execPath, [child, reference, 'start', '0'])).stdout) as {
      deliverables: Array<{ sha256: string }>;
    };
    const total = (await frames(reference)).length;

    // Kill points are set by progress (journal lines written), not by time, so they land the same on a busy machine.
    for (const share of [0.15, 0.4, 0.65, 0.9]) {
      const root = await makeTaskFolder();
      const proc = spawn(process.execPath, [child, root, 'start', '5'], { stdio: 'ignore' });
      const target = Math.max(1, Math.round(total * share));
      const exited = new Promise((resolve) => proc.once('exit', resolve));
      for (let seen = 0; seen < target && proc.exitCode === null;) {
        await new Promise((resolve) => setTimeout(resolve, 2));
        seen = (await readFile(join(root, 'progress', 'events.ndjson'), 'utf8').catch(() => '')).split('\n').length - 1;
      }
      proc.kill('SIGKILL');
      await exited;
      const before = (await frames(root)).filter((frame) => frame.seq > 0);
      if (before.at(-1)?.type === 'finish') continue;
      const resumed = JSON.parse((await run(process.execPath, [child, root, 'resume', '0'])).stdout) as {
        finishReason: string;
        deliverables: Array<{ sha256: string }>;
      };
      expect(resumed.finishReason).toBe('completed');
      expect(resumed.deliverables.map((file) => file.sha256)).toEqual(clean.deliverables.map((file) => file.sha256));
      const after = await frames(root);
      // Every frame that was on disk before the kill is still there, unchanged, and seq keeps increasing.
      expect(after.slice(0, before.length)).toEqual(before);
      expect(after.map((frame) => frame.seq)).toEqual(after.map((_, index) => index + 1));
      expect(after.some((frame) => frame.type === 'run.resumed')).toBe(true);
      const state = stateSchema.parse(JSON.parse(await readFile(join(root, 'progress', 'state.json'), 'utf8')));
      expect(state.usage.total_tokens).toBe(foldJournal(after, state.last_seq).usage.totalTokens);
    }
  }, 120_000);

  it.each([
    ['denied', false],
    ['approved', false],
    // A call that needed an approval before it first ran: that approval does not cover a second run.
    ['denied', true],
    ['approved', true],
  ] as const)(
    'asks before re-running a write that was in flight at the kill, and follows the decision (%s; approved before: %s)',
    async (decision, approvedBefore) => {
      const root = await makeTaskFolder();
      const proc = spawn(process.execPath, [child, root, 'start', '0'], {
        stdio: 'ignore',
        env: {
          ...process.env,
          GOVERNED_CHILD_HANG: 'write_artifact',
          ...(approvedBefore ? { GOVERNED_CHILD_REQUIRE: 'write_artifact' } : {}),
        },
      });
      const exited = new Promise((resolve) => proc.once('exit', resolve));
      while (!(await stat(join(root, 'tool-started')).catch(() => undefined))) {
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      proc.kill('SIGKILL');
      await exited;
      const inFlight = (await frames(root)).findLast((frame) => frame.type === 'tool.call');
      const callId = (inFlight?.data as { tool_call_id: string }).tool_call_id;
      expect(inFlight?.data).toMatchObject({ tool: 'write_artifact', effects: 'write', idempotent: false });

      const calls: string[] = [];
      const runner = createRunner({
        model: phaseModel(),
        tools: (paths) => fixtureTools(paths, calls),
        approvals: 'file',
      });
      const requests: Array<Record<string, unknown>> = [];
      runner.subscribe((frame) => {
        if (frame.type !== 'approval.requested') return;
        const data = frame.data as { id: string; plan_sig?: string; args_digest: string };
        requests.push(data);
        const { id, plan_sig, args_digest } = data;
        const timestamp = new Date().toISOString();
        void writeFile(
          join(root, 'progress', 'approvals', 'decisions', `${id}.json`),
          JSON.stringify({ id, decision, approved_by: 'ana', timestamp, plan_sig, args_digest }),
        );
      });
      const result = await runner.run(await runner.resume(root));
      expect(requests[0]).toMatchObject({
        type: 'tool',
        tool: 'write_artifact',
        args_digest: (inFlight?.data as { args_digest: string }).args_digest,
        rationale: 'uncertain_after_crash',
      });
      const after = await frames(root);
      // The same step only: a later Act (the refinement after a failed Verify) may reuse the model's call ids.
      const ofCall = after.filter(
        (frame) =>
          frame.step === inFlight?.step &&
          (frame.data as { tool_call_id?: string } | undefined)?.tool_call_id === callId,
      );
      if (decision === 'denied') {
        expect(ofCall.map((frame) => frame.type)).toEqual(['tool.call', 'tool.blocked']);
        expect(ofCall[1]?.message).toContain('not re-run after a crash: denied by ana');
        // Not run in the crashed step: the one write is the refinement's own call, after Verify failed (which the
        // same reviewer denies too when every write needs approval).
        expect(after.filter((frame) => frame.type === 'tool.result' && frame.step === inFlight?.step)).toEqual([]);
        expect(calls).toEqual(approvedBefore ? [] : ['write_artifact:summary.md']);
      } else {
        // Approved: journaled again, then run once.
        expect(ofCall.map((frame) => frame.type)).toEqual(['tool.call', 'tool.call', 'tool.result']);
        expect(calls).toEqual(['write_artifact:summary.md']);
        expect(result.finishReason).toBe('completed');
      }
    },
    60_000,
  );

  it('removes the temp files of writes the kill interrupted, and never counts them as deliverables', async () => {
    const reference = await makeTaskFolder();
    const clean = JSON.parse((await run(process.execPath, [child, reference, 'start', '0'])).stdout) as {
      deliverables: Array<{ path: string; sha256: string }>;
    };
    const root = await makeTaskFolder();
    const proc = spawn(process.execPath, [child, root, 'start', '5'], { stdio: 'ignore' });
    const exited = new Promise((resolve) => proc.once('exit', resolve));
    for (let seen = 0; seen < 8 && proc.exitCode === null;) {
      await new Promise((resolve) => setTimeout(resolve, 2));
      seen = (await readFile(join(root, 'progress', 'events.ndjson'), 'utf8').catch(() => '')).split('\n').length - 1;
    }
    proc.kill('SIGKILL');
    await exited;
    // What a kill between creating a temp file and renaming it leaves behind.
    const artifacts = join(root, 'progress', 'artifacts');
    const approvals = join(root, 'progress', 'approvals', 'requests');
    await mkdir(artifacts, { recursive: true });
    await mkdir(approvals, { recursive: true });
    await writeFile(join(artifacts, '.report.md.0123456789ab.agency-tmp'), 'half a report');
    await writeFile(join(approvals, '.req_x.json.0123456789ab.agency-tmp'), '{}');

    const resumed = JSON.parse((await run(process.execPath, [child, root, 'resume', '0'])).stdout) as {
      finishReason: string;
      deliverables: Array<{ path: string; sha256: string }>;
    };
    expect(resumed.finishReason).toBe('completed');
    expect(resumed.deliverables).toEqual(clean.deliverables);
    expect((await readdir(artifacts)).filter((name) => name.endsWith('.agency-tmp'))).toEqual([]);
    // Another process (a person deciding an approval) may be writing there, so approvals are left alone.
    expect(await readdir(approvals)).toContain('.req_x.json.0123456789ab.agency-tmp');
    expect(await frames(root)).toContainEqual(
      expect.objectContaining({
        type: 'warning',
        // The kill itself may have left more (state.json's, say).
        message: expect.stringMatching(
          /^Removed \d temp file\(s\) left by interrupted writes: .*progress\/artifacts\/\.report\.md\.0123456789ab\.agency-tmp/,
        ),
      }),
    );
  }, 60_000);
});
