// What a resumed run trusts: the journal. Files under progress/ that were changed, replaced by links or forged while
// the run was down change nothing, or stop the resume with an error that names them.
import { spawn } from 'node:child_process';
import { mkdir, readdir, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AgencyError } from '../../src/core/errors.ts';
import { createRedactor } from '../../src/core/redact.ts';
import type { EventFrame } from '../../src/task/contracts/events.ts';
import { readJournal } from '../../src/task/journal/read-journal.ts';
import { createRunner } from '../../src/task/runner.ts';
import { FIXTURE_PLAN, fixtureTools, makeTaskFolder, phaseModel } from '../support/governed-fixture.ts';

const child = join(import.meta.dirname, '../support/governed-child.ts');

async function frames(root: string): Promise<EventFrame[]> {
  return (await readJournal(join(root, 'progress', 'events.ndjson'))).frames;
}

// A run killed in Act while its write_artifact call is in flight: gather, plan and the plan approval are done.
async function killedInAct(env: Record<string, string> = {}): Promise<string> {
  const root = await makeTaskFolder();
  const proc = spawn(process.execPath, [child, root, 'start', '0'], {
    stdio: 'ignore',
    env: { ...process.env, GOVERNED_CHILD_HANG: 'write_artifact', ...env },
  });
  const exited = new Promise((resolve) => proc.once('exit', resolve));
  while (!(await stat(join(root, 'tool-started')).catch(() => undefined))) {
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  proc.kill('SIGKILL');
  await exited;
  return root;
}

const resumeAndRun = async (root: string, model = phaseModel()) => {
  const runner = createRunner({ model, tools: (paths) => fixtureTools(paths), approvals: 'auto' });
  return runner.run(await runner.resume(root));
};

describe('a resumed run trusts its journal, not the files beside it', () => {
  it('refuses a spec.json edited while the run was down, naming the fields; without it, rewrites it from the journal', async () => {
    const root = await killedInAct();
    const specFile = join(root, 'progress', 'spec.json');
    const original = await readFile(specFile, 'utf8');
    const spec = JSON.parse(original) as {
      budgets: { max_iterations: number | null };
      approvals: Record<string, unknown>;
    };
    spec.budgets.max_iterations = 100_000;
    spec.approvals.require_plan = false;
    await writeFile(specFile, JSON.stringify(spec));
    const refused = await resumeAndRun(root).catch((error: unknown) => error);
    expect(AgencyError.hasCode(refused, 'task_folder_invalid')).toBe(true);
    expect((refused as Error).message).toMatch(/"approvals\.require_plan", "budgets\.max_iterations" changed/);
    expect((refused as Error).message).toContain('delete');

    // The fix the message suggests works: without spec.json, resume rewrites it from the journal and goes on.
    await rm(specFile);
    const result = await resumeAndRun(root);
    expect(result.finishReason).toBe('completed');
    expect(JSON.parse(await readFile(specFile, 'utf8'))).toEqual(JSON.parse(original));
    expect((await frames(root)).some((frame) => frame.message?.includes('rewrote it from the journal'))).toBe(true);
  }, 60_000);

  it('takes finished steps from the journal: a forged steps/*/output.json changes nothing', async () => {
    const root = await killedInAct();
    const stepsDir = join(root, 'progress', 'steps');
    const approve = (await readdir(stepsDir)).find((name) => name.endsWith('-approve-plan-v1'));
    expect(approve).toBeDefined();
    await writeFile(join(stepsDir, approve as string, 'output.json'), JSON.stringify({ decision: 'denied', by: 'x' }));
    const result = await resumeAndRun(root);
    expect(result.finishReason).toBe('completed');
  }, 60_000);

  it('keeps a journaled decision: a decision file rewritten afterwards is not read', async () => {
    const root = await killedInAct({ GOVERNED_CHILD_REQUIRE: 'write_artifact' });
    const decided = (await frames(root)).findLast((frame) => frame.type === 'approval.decided');
    expect(decided?.data).toMatchObject({ type: 'tool', decision: 'approved' });
    const id = (decided?.data as { id: string }).id;
    const file = join(root, 'progress', 'approvals', 'decisions', `${id}.json`);
    const decision = JSON.parse(await readFile(file, 'utf8')) as Record<string, unknown>;
    await writeFile(file, JSON.stringify({ ...decision, decision: 'denied', approved_by: 'mallory' }));
    const result = await resumeAndRun(root);
    expect(result.finishReason).toBe('completed');
    const after = await frames(root);
    expect(after.some((frame) => frame.type === 'tool.blocked')).toBe(false);
    expect(JSON.stringify(after)).not.toContain('mallory');
  }, 60_000);

  it('refuses to resume through a directory link planted under progress/, and says which link', async () => {
    const root = await killedInAct();
    const outside = join(root, 'outside');
    await mkdir(outside);
    await rm(join(root, 'progress', 'verify'), { recursive: true });
    await symlink(outside, join(root, 'progress', 'verify'));
    const refused = await resumeAndRun(root).catch((error: unknown) => error);
    expect(AgencyError.hasCode(refused, 'path_symlink_escape')).toBe(true);
    expect((refused as Error).message).toContain(`${join(root, 'progress', 'verify')} is a symbolic link`);
    expect(await readdir(outside)).toEqual([]);
  }, 60_000);
});

describe('secrets stay out of every file the runner writes', () => {
  it('scrubs a registered secret the model repeats from the plan, requests, reports, notes and steps', async () => {
    const secret = 'sk-canary-Zq81xW4vLr0pTq7n';
    const root = await makeTaskFolder();
    const plan = {
      ...FIXTURE_PLAN,
      steps: [{ id: 's1', title: `Write the summary with key ${secret}`, tools: ['write_artifact'] }],
    };
    const model = phaseModel({
      plan: () => ({ text: JSON.stringify(plan) }),
      act: (options) =>
        options.prompt.at(-1)?.role === 'tool'
          ? { text: `Done; the key was ${secret}.` }
          : { toolCalls: [{ id: 'w1', name: 'write_artifact', input: { name: 'summary.md', text: `key ${secret}` } }] },
      verify: () => ({
        text: JSON.stringify({ criteria: [{ id: 'a1', passed: true, evidence: `saw ${secret} in the file` }] }),
      }),
    });
    const runner = createRunner({
      model,
      tools: (paths) => fixtureTools(paths),
      approvals: 'auto',
      redactor: createRedactor({ extraSecrets: [secret] }),
    });
    const result = await runner.doTask(root, { approvals: { requireTools: ['write_artifact'] } });
    expect(result.finishReason).toBe('completed');
    const leaks: string[] = [];
    const fragments = Array.from({ length: secret.length - 9 }, (_, start) => secret.slice(start, start + 10));
    const scan = async (dir: string): Promise<void> => {
      for (const entry of await readdir(dir, { withFileTypes: true })) {
        const full = join(dir, entry.name);
        // Deliverables are what the tools wrote, not the runner's own files.
        if (entry.isDirectory() && entry.name !== 'artifacts') await scan(full);
        if (!entry.isFile()) continue;
        const text = await readFile(full, 'utf8');
        if (fragments.some((fragment) => text.includes(fragment))) leaks.push(relative(root, full));
      }
    };
    await scan(join(root, 'progress'));
    expect(leaks).toEqual([]);
    const requests = await readdir(join(root, 'progress', 'approvals', 'requests'));
    expect(requests.length).toBeGreaterThanOrEqual(2);
  }, 60_000);
});
