// `agency run --role`: a role from AGENCY_ROOT/roles/ sets the persona, the tools, the policy and the budgets of a
// real run over HTTP, explicit flags win over it, and bad roles are refused with the file, line and fix.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readJournal } from '../../src/task/journal/read-journal.ts';
import { cli } from '../support/cli.ts';
import { makeTaskFolder } from '../support/governed-fixture.ts';
import { startOpenAICompatibleServer, summariseAnswers, textOf } from '../support/openai-compatible-server.ts';

let local: Awaited<ReturnType<typeof startOpenAICompatibleServer>>;
let agencyRootDir: string;
const seen: Array<{ system: string; tools: string[] }> = [];

beforeAll(async () => {
  local = await startOpenAICompatibleServer((phase, turn, messages, tools = []) => {
    seen.push({ system: messages[0] ? textOf(messages[0]) : '', tools });
    return summariseAnswers(phase, turn, messages);
  });
  agencyRootDir = await mkdtemp(join(tmpdir(), 'agency-root-'));
  await mkdir(join(agencyRootDir, 'roles'));
  await writeFile(
    join(agencyRootDir, 'roles', 'summariser.yaml'),
    [
      'description: Summarises task inputs',
      'persona: You are summariser-7, who writes one-line summaries.',
      'tools: [fs_read, fs_write]',
      'budgets:',
      '  max_iterations: 40',
      '  max_total_tokens: 90000',
      '',
    ].join('\n'),
  );
});

afterAll(async () => {
  local.server.close();
  await rm(agencyRootDir, { recursive: true, force: true });
});

const run = (root: string, ...flags: string[]) =>
  cli(['run', root, '--model', `openai-compatible:${local.url}#local-model`, '--approvals', 'auto', ...flags], {
    AGENCY_ROOT: agencyRootDir,
  });

async function startedBudgets(root: string): Promise<unknown> {
  const { frames } = await readJournal(join(root, 'progress', 'events.ndjson'));
  const started = frames.find((frame) => frame.type === 'run.started');
  return (started?.data?.spec as { budgets?: unknown } | undefined)?.budgets;
}

describe('agency run --role', () => {
  it("runs with the role's persona, only its tools and its budgets", async () => {
    const root = await makeTaskFolder();
    seen.length = 0;
    const result = await run(root, '--role', 'summariser');

    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.every((request) => request.system.includes('You are summariser-7'))).toBe(true);
    const offered = new Set(seen.flatMap((request) => request.tools));
    expect(offered.has('fs_read')).toBe(true);
    expect(['http_fetch', 'file_glob', 'sandbox_exec', 'links_check'].filter((tool) => offered.has(tool))).toEqual([]);
    expect(await startedBudgets(root)).toMatchObject({ max_iterations: 40, max_total_tokens: 90_000 });
  }, 60_000);

  it('lets explicit flags win over the role', async () => {
    const root = await makeTaskFolder();
    expect((await run(root, '--role', 'summariser', '--max-iterations', '30')).code).toBe(0);
    expect(await startedBudgets(root)).toMatchObject({ max_iterations: 30, max_total_tokens: 90_000 });
  }, 60_000);

  it.each([
    ['an unknown role', 'poet', /Unknown role "poet"; the roles are researcher, reviewer, summariser, writer/],
    ['a path in the name', '../x', /Role "\.\.\/x" must be lowercase letters/],
  ])(
    'refuses %s before the run starts',
    async (_case, name, message) => {
      const root = await makeTaskFolder();
      const requests = local.requests();
      const result = await run(root, '--role', name);

      expect(result.code).not.toBe(0);
      expect(result.stderr).toMatch(message);
      expect(local.requests()).toBe(requests);
    },
    30_000,
  );

  it('refuses a role file with a tool that does not exist, naming the file and line', async () => {
    await writeFile(
      join(agencyRootDir, 'roles', 'broken.yaml'),
      'description: B\npersona: P\ntools: [fs_read, shell]\n',
    );
    const result = await run(await makeTaskFolder(), '--role', 'broken');

    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(/roles\/broken\.yaml:3:\d+: tools\[1\]: unknown tool "shell"/);
  }, 30_000);
});
