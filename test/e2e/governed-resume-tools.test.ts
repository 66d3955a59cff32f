// What a resumed run does with the tool calls a kill interrupted: a result already in the journal is handed to the
// model without running the tool again; a call journaled without its result is run again if the tool is idempotent,
// and otherwise only with an approval (see governed-stops.test.ts for the approval itself).
import { spawn } from 'node:child_process';
import { stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { EventFrame } from '../../src/task/contracts/events.ts';
import { readJournal } from '../../src/task/journal/read-journal.ts';
import { createRunner } from '../../src/task/runner.ts';
import type { Tool } from '../../src/tools/define-tool.ts';
import { fixtureTools, makeTaskFolder, phaseModel } from '../support/governed-fixture.ts';
import { ledgerLines, markIdempotent, withLedger } from '../support/tool-ledger.ts';

const child = join(import.meta.dirname, '../support/governed-child.ts');

async function frames(root: string): Promise<EventFrame[]> {
  return (await readJournal(join(root, 'progress', 'events.ndjson'))).frames;
}

const callIdOf = (frame: EventFrame | undefined) =>
  (frame?.data as { tool_call_id?: string } | undefined)?.tool_call_id;

/** Starts the fixture task in a child with `env`, waits until `ready(root)` holds or it exits, and SIGKILLs it. */
async function killedChild(env: Record<string, string>, ready: (root: string) => Promise<boolean>) {
  const root = await makeTaskFolder();
  const resolved = Object.fromEntries(Object.entries(env).map(([key, value]) => [key, value.replace('<root>', root)]));
  const proc = spawn(process.execPath, [child, root, 'start', '0'], {
    stdio: 'ignore',
    env: { ...process.env, ...resolved },
  });
  const exited = new Promise<NodeJS.Signals | null>((resolve) => proc.once('exit', (_code, signal) => resolve(signal)));
  while (proc.exitCode === null && proc.signalCode === null && !(await ready(root))) {
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  proc.kill('SIGKILL');
  expect(await exited).toBe('SIGKILL');
  return root;
}

/** Resumes `root` in this process with the fixture tools (plus `wrap`), denying any approval it asks for. */
async function resumeHere(root: string, wrap: (tools: Tool[]) => Tool[] = (tools) => tools) {
  const model = phaseModel();
  const runner = createRunner({ model, tools: (paths) => wrap(fixtureTools(paths)), approvals: 'file' });
  const requests: Array<Record<string, unknown>> = [];
  runner.subscribe((frame) => {
    if (frame.type !== 'approval.requested') return;
    const data = frame.data as { id: string; plan_sig?: string; args_digest?: string };
    requests.push(data);
    const decision = { id: data.id, decision: 'denied', approved_by: 'test', timestamp: new Date().toISOString() };
    void writeFile(
      join(root, 'progress', 'approvals', 'decisions', `${data.id}.json`),
      JSON.stringify({ ...decision, plan_sig: data.plan_sig, args_digest: data.args_digest }),
    );
  });
  const result = await runner.run(await runner.resume(root));
  return { result, requests, model };
}

describe('resume reuses tool results already in the journal', () => {
  it('does not run a non-idempotent tool again when its result was durable before the kill, and gives the model that result', async () => {
    // The child dies the moment write_artifact's tool.result frame is fsynced, before the step's next checkpoint.
    const root = await killedChild(
      { GOVERNED_CHILD_KILL_AFTER_RESULT: 'write_artifact', GOVERNED_CHILD_LEDGER: '<root>/ledger.log' },
      async () => false,
    );
    const ledger = join(root, 'ledger.log');
    const before = await frames(root);
    const result = before.at(-1);
    expect(result).toMatchObject({ type: 'tool.result', data: { tool: 'write_artifact', ok: true } });
    expect(JSON.stringify(result?.data)).toContain('(ledger line 2)');
    expect(before.find((frame) => frame.type === 'tool.call' && callIdOf(frame) === callIdOf(result))).toMatchObject({
      data: { effects: 'write', idempotent: false },
    });
    expect(ledgerLines(ledger).filter((line) => line.startsWith('write_artifact'))).toHaveLength(1);

    const { result: finished, requests, model } = await resumeHere(root, (tools) => withLedger(tools, ledger));
    expect(finished.finishReason).toBe('completed');
    expect(requests).toEqual([]);
    // Run once overall: the ledger has the line from before the kill and no other.
    expect(ledgerLines(ledger).filter((line) => line.startsWith('write_artifact'))).toHaveLength(1);
    // The model was handed the journaled output, the one the first process produced.
    const prompts = model.calls.map((call) => JSON.stringify(call.options.prompt));
    expect(prompts.some((prompt) => prompt.includes('wrote summary.md (ledger line 2)'))).toBe(true);
    expect(prompts.some((prompt) => prompt.includes('(ledger line 3)'))).toBe(false);
    // Journaled once: the recovered call gets neither a second tool.call nor a second tool.result.
    const ofCall = (await frames(root)).filter(
      (frame) => frame.step === result?.step && callIdOf(frame) === callIdOf(result),
    );
    expect(ofCall.map((frame) => frame.type)).toEqual(['tool.call', 'tool.result']);
  }, 60_000);
});

describe('resume re-runs an idempotent tool that was in flight at the kill', () => {
  it('runs it again without asking', async () => {
    const root = await killedChild(
      { GOVERNED_CHILD_HANG: 'write_artifact', GOVERNED_CHILD_IDEMPOTENT: 'write_artifact' },
      async (at) => (await stat(join(at, 'tool-started')).catch(() => undefined)) !== undefined,
    );
    const before = await frames(root);
    const inFlight = before.findLast((frame) => frame.type === 'tool.call');
    expect(inFlight?.data).toMatchObject({ tool: 'write_artifact', effects: 'write', idempotent: true });
    const ledger = join(root, 'ledger.log');

    const { result, requests } = await resumeHere(root, (tools) =>
      withLedger(markIdempotent(tools, ['write_artifact']), ledger),
    );
    expect(requests).toEqual([]);
    expect(result.finishReason).toBe('completed');
    expect(ledgerLines(ledger).filter((line) => line.startsWith('write_artifact'))).toHaveLength(1);
    const after = await frames(root);
    const resumed = after.slice(before.length);
    expect(resumed.some((frame) => frame.type === 'approval.requested' || frame.type === 'tool.blocked')).toBe(false);
    const ofCall = after.filter((frame) => frame.step === inFlight?.step && callIdOf(frame) === callIdOf(inFlight));
    expect(ofCall.map((frame) => frame.type)).toEqual(['tool.call', 'tool.call', 'tool.result']);
  }, 60_000);
});
