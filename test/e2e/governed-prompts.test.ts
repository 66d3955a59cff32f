import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LanguageModelV4CallOptions } from '@ai-sdk/provider';
import { describe, expect, it } from 'vitest';
import { recordModel } from '../../src/model/cassette/record-model.ts';
import { replayModel } from '../../src/model/cassette/replay-model.ts';
import { BUILTIN_PROMPTS } from '../../src/prompts/builtin-prompts.ts';
import { createInMemoryPromptStore } from '../../src/prompts/in-memory-prompt-store.ts';
import type { PromptStore } from '../../src/prompts/prompt-store.ts';
import { eventFrameSchema, type EventFrame } from '../../src/task/contracts/events.ts';
import { readJournal } from '../../src/task/journal/read-journal.ts';
import { createRunner } from '../../src/task/runner.ts';
import { fixtureTools, makeTaskFolder, phaseModel } from '../support/governed-fixture.ts';

async function frames(root: string): Promise<EventFrame[]> {
  return (await readJournal(join(root, 'progress', 'events.ndjson'))).frames;
}

// The prompts each model call of the run named, in order.
async function promptsByCall(root: string): Promise<string[][]> {
  return (await frames(root))
    .filter((frame) => frame.type === 'usage.delta')
    .map((frame) => (frame.data?.prompts as string[] | undefined) ?? []);
}

// An operator's store over the built-in prompts: its versions of runner.plan are numbered after agency's (1 and 2).
async function operatorStore(texts: string[]): Promise<PromptStore> {
  const store = createInMemoryPromptStore({ after: BUILTIN_PROMPTS });
  for (const text of texts) await store.put({ id: 'runner.plan', text, createdBy: 'ops' });
  return store;
}

const BRIEFLY = 'Phase: PLAN. Answer with the plan as JSON, briefly.\nTools you may allow:\n{{tools}}';
const PLAINLY = 'Phase: PLAN. Answer with the plan as JSON.\nTools you may allow:\n{{tools}}';

function asksOf(model: ReturnType<typeof phaseModel>): string[] {
  return model.calls.map((call) => askOf(call.options));
}

function askOf(options: LanguageModelV4CallOptions): string {
  const last = options.prompt.at(-1);
  if (last?.role !== 'user') return '';
  return last.content.map((part) => (part.type === 'text' ? part.text : '')).join('\n');
}

describe('the runner’s prompts, from the PromptStore', () => {
  it('journals the built-in version of every prompt each model call used', async () => {
    const root = await makeTaskFolder();
    const result = await createRunner({
      model: phaseModel(),
      tools: (paths) => fixtureTools(paths),
      approvals: 'auto',
    }).doTask(root, {});
    expect(result.finishReason).toBe('completed');
    for (const frame of await frames(root)) eventFrameSchema.parse(frame);
    const used = await promptsByCall(root);
    expect(used.length).toBeGreaterThan(3);
    for (const refs of used) expect(refs[0]).toBe('runner.persona@2');
    expect(used.map((refs) => refs[1])).toEqual(
      expect.arrayContaining(['runner.gather@2', 'runner.plan@2', 'runner.act@2', 'runner.verify@2']),
    );
  });

  it('uses an operator’s version, latest or pinned, and journals it', async () => {
    const prompts = await operatorStore([BRIEFLY, PLAINLY]);
    expect((await prompts.audit({ id: 'runner.plan' }))[0]?.previous?.version).toBe(2);
    const latestRoot = await makeTaskFolder();
    const model = phaseModel();
    await createRunner({ model, tools: (paths) => fixtureTools(paths), approvals: 'auto', prompts }).doTask(
      latestRoot,
      {},
    );
    expect(asksOf(model).some((ask) => ask.includes('Phase: PLAN. Answer with the plan as JSON.\n'))).toBe(true);
    const latest = (await promptsByCall(latestRoot)).flat();
    expect(latest).toContain('runner.plan@4');
    expect(latest).not.toContain('runner.plan@2');

    const pinnedRoot = await makeTaskFolder();
    const pinnedModel = phaseModel();
    await createRunner({
      model: pinnedModel,
      tools: (paths) => fixtureTools(paths),
      approvals: 'auto',
      prompts,
      promptVersions: { 'runner.plan': 3 },
    }).doTask(pinnedRoot, {});
    expect(asksOf(pinnedModel).some((ask) => ask.includes('Phase: PLAN. Answer with the plan as JSON, briefly.'))).toBe(
      true,
    );
    expect((await promptsByCall(pinnedRoot)).flat()).toContain('runner.plan@3');
  });

  it('refuses a pinned version that does not exist, a variable agency does not give, a version held twice', async () => {
    const run = async (options: Omit<Parameters<typeof createRunner>[0], 'model'>) =>
      createRunner({
        model: phaseModel(),
        tools: (paths) => fixtureTools(paths),
        approvals: 'auto',
        ...options,
      }).doTask(await makeTaskFolder(), {});
    const missing = await run({ promptVersions: { 'runner.plan': 7 } });
    expect(missing.finishReason).toBe('error');
    expect(missing.error?.message).toMatch(/Prompt "runner\.plan" has no version 7 \(it has 1, 2\).*runner\.plan@7/);

    const store = createInMemoryPromptStore({ after: BUILTIN_PROMPTS });
    await store.put({ id: 'runner.gather', text: 'Phase: GATHER for {{customer}}', createdBy: 'ops' });
    const bad = await run({ prompts: store });
    expect(bad.finishReason).toBe('error');
    expect(bad.error?.message).toMatch(/runner\.gather@3 uses "customer", which agency does not give/);

    // A store that numbers its own versions from 1 would give "runner.plan@1" a second text.
    const clash = createInMemoryPromptStore();
    await clash.put({ id: 'runner.plan', text: PLAINLY, createdBy: 'ops' });
    const twice = await run({ prompts: clash });
    expect(twice.finishReason).toBe('error');
    expect(twice.error?.message).toMatch(/runner\.plan@1 is held twice with different contents/);
  });
});

describe('a cassette recorded with one prompt version, replayed with another', () => {
  it('explains the mismatch, and the pin it suggests replays the cassette', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'agency-prompt-cassette-'));
    const cassette = join(dir, 'run.cassette.jsonl');
    const tools = (paths: Parameters<typeof fixtureTools>[0]) => fixtureTools(paths);
    const recorded = await createRunner({
      model: recordModel(phaseModel(), cassette),
      tools,
      approvals: 'auto',
    }).doTask(await makeTaskFolder(), {});
    expect(recorded.finishReason).toBe('completed');
    const lines = (await readFile(cassette, 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(lines.filter((line) => line.type === 'call').every((line) => line.prompts?.[0] === 'runner.persona@2')).toBe(
      true,
    );
    // The names are beside the request, not in it: the request digest is what it was before prompts were named.
    expect(JSON.stringify(lines)).not.toMatch(/"providerOptions":\{"agency"/);

    const prompts = await operatorStore([PLAINLY]);
    const changed = await createRunner({ model: replayModel(cassette), tools, approvals: 'auto', prompts }).doTask(
      await makeTaskFolder(),
      {},
    );
    expect(changed.finishReason).toBe('error');
    const message = changed.error?.message ?? '';
    expect(message).toMatch(/was recorded with prompt runner\.plan@2, this run uses runner\.plan@3/);
    expect(message).toMatch(/--prompt runner\.plan@2/);
    expect(message).toMatch(/--record <cassette>/);

    // The fix it suggests: pin the recorded version.
    const pinned = await createRunner({
      model: replayModel(cassette),
      tools,
      approvals: 'auto',
      prompts,
      promptVersions: { 'runner.plan': 2 },
    }).doTask(await makeTaskFolder(), {});
    expect(pinned.finishReason).toBe('completed');
  });
});
