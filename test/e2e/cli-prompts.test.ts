import { mkdir, mkdtemp, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readJournal } from '../../src/task/journal/read-journal.ts';
import { cli } from '../support/cli.ts';
import { makeTaskFolder } from '../support/governed-fixture.ts';
import { startOpenAICompatibleServer } from '../support/openai-compatible-server.ts';

let local: Awaited<ReturnType<typeof startOpenAICompatibleServer>>;
beforeAll(async () => {
  local = await startOpenAICompatibleServer();
});
afterAll(() => local.server.close());

const PLAN_V3 = [
  '---',
  'id: runner.plan',
  'version: 3',
  'engine: mustache',
  'requiredVars: [tools]',
  'metadata: { note: shorter }',
  'createdBy: ops',
  'createdAt: 2026-11-25T12:00:00.000Z',
  '---',
  'Phase: PLAN. Answer with the plan as JSON.',
  'Tools you may allow:',
  '{{tools}}',
].join('\n');

async function promptsFolder(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'agency-cli-prompts-'));
  await mkdir(join(dir, 'runner.plan'));
  await writeFile(join(dir, 'runner.plan', '3.md'), PLAN_V3);
  return dir;
}

async function usedPrompts(root: string): Promise<string[]> {
  const { frames } = await readJournal(join(root, 'progress', 'events.ndjson'));
  return frames.flatMap((frame) => (frame.type === 'usage.delta' ? ((frame.data?.prompts as string[]) ?? []) : []));
}

describe('agency run --prompts and --prompt', () => {
  it('runs with an operator’s version, explains a cassette recorded with another, and replays with the pin', async () => {
    const cassette = join(await mkdtemp(join(tmpdir(), 'agency-cli-cassette-')), 'run.cassette.jsonl');
    const model = `openai-compatible:${local.url}#local-model`;
    const recorded = await makeTaskFolder();
    expect((await cli(['run', recorded, '--model', model, '--approvals', 'auto', '--record', cassette])).code).toBe(0);
    expect(await usedPrompts(recorded)).toContain('runner.plan@2');

    const prompts = await promptsFolder();
    const live = await makeTaskFolder();
    expect((await cli(['run', live, '--model', model, '--approvals', 'auto', '--prompts', prompts])).code).toBe(0);
    expect(await usedPrompts(live)).toContain('runner.plan@3');
    expect(await usedPrompts(live)).not.toContain('runner.plan@2');

    const replayed = await makeTaskFolder();
    const args = ['run', replayed, '--model', `replay:${cassette}`, '--approvals', 'auto', '--prompts', prompts];
    const mismatch = await cli(args);
    expect(mismatch.code).not.toBe(0);
    expect(`${mismatch.stdout}${mismatch.stderr}`).toMatch(
      /recorded with prompt runner\.plan@2, this run uses runner\.plan@3\. Pin the recorded version \(agency run … --prompt runner\.plan@2/,
    );

    const pinned = await makeTaskFolder();
    const fixed = await cli(['run', pinned, ...args.slice(2), '--prompt', 'runner.plan@2']);
    expect(fixed.code).toBe(0);
    expect(await usedPrompts(pinned)).toContain('runner.plan@2');
  }, 60_000);

  it('refuses a malformed pin, an unknown version and a folder with a planted link', async () => {
    const root = await makeTaskFolder();
    const model = `openai-compatible:${local.url}#local-model`;
    const bad = await cli(['run', root, '--model', model, '--prompt', 'runner.plan']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--prompt <id@version>.*write it as <id>@<version>/);
    const traversal = await cli(['run', root, '--model', model, '--prompt', '../etc@1']);
    expect(traversal.code).toBe(2);

    const unknown = await cli([
      'run',
      await makeTaskFolder(),
      '--model',
      model,
      '--approvals',
      'auto',
      '--prompt',
      'runner.plan@9',
    ]);
    expect(unknown.code).not.toBe(0);
    expect(`${unknown.stdout}${unknown.stderr}`).toMatch(/Prompt "runner\.plan" has no version 9 \(it has 1, 2\)/);

    const missing = await cli(['run', await makeTaskFolder(), '--model', model, '--prompts', '/nonexistent/prompts']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/--prompts: \/nonexistent\/prompts is not a folder/);

    const planted = await mkdtemp(join(tmpdir(), 'agency-cli-prompts-'));
    await symlink(await promptsFolder(), join(planted, 'runner.plan'));
    const linked = await cli([
      'run',
      await makeTaskFolder(),
      '--model',
      model,
      '--approvals',
      'auto',
      '--prompts',
      planted,
    ]);
    expect(linked.code).not.toBe(0);
    expect(`${linked.stdout}${linked.stderr}`).toMatch(/runner\.plan:1: is a symbolic link/);
  }, 60_000);
});
