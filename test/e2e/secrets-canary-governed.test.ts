// The secrets canary for a governed task: a credential the broker loads for one tool, repeated by the model in its
// findings, plan, tool arguments, answer and Verify evidence, echoed by tools (once cut by fs_read in the middle of
// the value, once in an output over 100,000 characters that the history cuts inside it), held in an approval request
// and logged. Every file the run writes under progress/ (the deliverables in artifacts/ excepted), the log and the
// cassette must hold the value in none of its spellings and no 10 consecutive characters of it.
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LanguageModelV4CallOptions } from '@ai-sdk/provider';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { TRUNCATION_MARKER } from '../../src/agent/history.ts';
import { createRedactor, type Redactor } from '../../src/core/redact.ts';
import { createCredentialBroker, env } from '../../src/credentials/index.ts';
import { recordModel } from '../../src/model/cassette/record-model.ts';
import { createLogger } from '../../src/obs/index.ts';
import type { EventFrame } from '../../src/task/contracts/events.ts';
import type { TaskPaths } from '../../src/task/layout.ts';
import { createRunner } from '../../src/task/runner.ts';
import { createFsReadTool } from '../../src/tools/builtin/fs-read.ts';
import { toolCredentials, wrapToolWithCredentials } from '../../src/tools/credential-tool.ts';
import { defineTool, type Tool } from '../../src/tools/define-tool.ts';
import { canarySpellings, filesUnder, findCanary } from '../support/canary-scan.ts';
import { makeTaskFolder, phaseModel } from '../support/governed-fixture.ts';

// Characters that URL encoding and base64 both change, around two random parts.
const makeCanary = () => `canary/${randomBytes(8).toString('hex')}+${randomBytes(8).toString('hex')}=`;
// fs_read returns this many characters of the log's first line: the prefix and 17 characters of the canary.
const LOG_PREFIX = 'deploy: accepted token ';
const FS_READ_CHARS = LOG_PREFIX.length + 17;
// The history keeps 100,000 characters of a tool result; the canary starts 19 characters before that cut.
const HISTORY_CHARS = 100_000;

type Logger = ReturnType<typeof createLogger>;

function tools(paths: TaskPaths, broker: Parameters<typeof wrapToolWithCredentials>[1], logger: Logger): Tool[] {
  const deploy = defineTool({
    name: 'deploy',
    description: 'Deploys with the deploy token and writes artifacts/deploy.log',
    input: z.object({ target: z.string(), note: z.string() }),
    effects: 'write',
    execute: async ({ target }, context) => {
      const token = toolCredentials(context).get('deploy');
      // A careless tool logs its credential; the logger must scrub it.
      logger.debug({ token, target }, `deploying with ${token}`);
      await mkdir(paths.artifacts, { recursive: true });
      await writeFile(join(paths.artifacts, 'deploy.log'), `${LOG_PREFIX}${token} for ${target}\nsecond line\n`);
      return `deployed to ${target} with ${token}`;
    },
  });
  const dump = defineTool({
    name: 'dump',
    description: 'Prints the deploy environment',
    input: z.object({ token: z.string() }),
    effects: 'read',
    execute: ({ token }) => `${'x'.repeat(HISTORY_CHARS - 19)}${token} (end of dump)`,
  });
  const fsRead = createFsReadTool({
    roots: [
      { label: 'task', path: paths.task },
      { label: 'progress', path: paths.progress },
    ],
    maxChars: FS_READ_CHARS,
  });
  return [wrapToolWithCredentials(deploy, broker), dump, fsRead];
}

// How many tool results the model has been given since the phase's ask.
function toolResults(options: LanguageModelV4CallOptions): number {
  const ask = options.prompt.findLastIndex((message) => message.role === 'user');
  return options.prompt.slice(ask + 1).filter((message) => message.role === 'tool').length;
}

// A model that repeats the canary wherever it can: findings, plan, tool arguments, answers and Verify evidence.
function chattyModel(canary: string) {
  const plan = {
    goal: `Deploy to prod with token ${canary}`,
    steps: [{ id: 's1', title: `Deploy using ${canary}`, tools: ['deploy', 'fs_read', 'dump'] }],
    allowed_tools: ['deploy', 'fs_read', 'dump'],
    acceptance: [
      {
        id: 'a1',
        criterion: `deploy.log shows ${canary}`,
        check: { type: 'file_exists', path: 'artifacts/deploy.log' },
      },
    ],
  };
  const act = [
    { toolCalls: [{ id: 'd1', name: 'deploy', input: { target: 'prod', note: `token ${canary}` } }] },
    { toolCalls: [{ id: 'r1', name: 'fs_read', input: { path: 'progress/artifacts/deploy.log' } }] },
    { toolCalls: [{ id: 'x1', name: 'dump', input: { token: canary } }] },
    { text: `Deployed; the token ${canary} was accepted.` },
  ];
  return phaseModel({
    gather: (options) =>
      toolResults(options) === 0
        ? { toolCalls: [{ id: 'g1', name: 'fs_read', input: { path: 'task/brief.md' } }] }
        : { text: `- The deploy token is ${canary} (task/brief.md).` },
    plan: () => ({ text: JSON.stringify(plan) }),
    act: (options) => act[Math.min(toolResults(options), act.length - 1)]!,
    verify: () => ({
      text: JSON.stringify({ criteria: [{ id: 'a1', passed: true, evidence: `deploy.log holds ${canary}` }] }),
    }),
  });
}

async function governedRun(redactor: Redactor | undefined) {
  const canary = makeCanary();
  const dir = mkdtempSync(join(tmpdir(), 'agency-canary-governed-'));
  const withRedactor = redactor ? { redactor } : {};
  const logFile = join(dir, 'logs', 'agency.jsonl');
  const logger = createLogger({ level: 'trace', destination: logFile, ...withRedactor });
  const broker = createCredentialBroker({
    sources: [{ name: 'deploy', tools: ['deploy'], from: env('DEPLOY_TOKEN') }],
    env: { DEPLOY_TOKEN: canary },
    logger,
    ...withRedactor,
  });
  await broker.preload();
  const root = await makeTaskFolder(`# Deploy\n\nDeploy to prod. The deploy token is ${canary}; keep it secret.\n`);
  const model = chattyModel(canary);
  const cassette = join(dir, 'cassettes', 'governed.jsonl');
  const runner = createRunner({
    model: recordModel(model, cassette, withRedactor),
    tools: (paths) => tools(paths, broker, logger),
    approvals: 'auto',
    ...withRedactor,
  });
  runner.subscribe((frame: EventFrame) => logger.info({ frame }, `event ${frame.type}`));
  const result = await runner.doTask(root, { approvals: { requireTools: ['deploy'] } });
  logger.info({ result }, 'run finished');
  return { canary, dir, root, logFile, cassette, result, model };
}

describe.each([
  ['an explicit redactor', () => createRedactor()],
  ['the default redactor', () => undefined],
])('secrets canary in a governed task, with %s', (_name, redactorFor) => {
  it('leaves no spelling and no 10 characters of a credential in progress/, the log or the cassette', async () => {
    const { canary, root, logFile, cassette, result, model } = await governedRun(redactorFor());
    expect(result.finishReason).toBe('completed');

    // The run really carried the canary: the model read it, the tools echoed it, fs_read and the history cut it.
    const prompts = model.calls.map((call) => JSON.stringify(call.options.prompt));
    expect(prompts.some((prompt) => prompt.includes(`deployed to prod with ${canary}`))).toBe(true);
    expect(prompts.some((prompt) => prompt.includes(`${LOG_PREFIX}${canary.slice(0, 17)}"`))).toBe(true);
    expect(prompts.some((prompt) => prompt.includes(`${canary.slice(0, 19)}\\n${TRUNCATION_MARKER}`))).toBe(true);
    expect(readFileSync(join(root, 'progress', 'artifacts', 'deploy.log'), 'utf8')).toContain(canary);
    const requestsDir = join(root, 'progress', 'approvals', 'requests');
    const requests = readdirSync(requestsDir).map(
      (name) => JSON.parse(readFileSync(join(requestsDir, name), 'utf8')) as Record<string, unknown>,
    );
    // The deploy call's approval request held the canary in its arguments, redacted.
    const deployRequest = requests.find((request) => request.type === 'tool' && request.tool_name === 'deploy');
    expect(deployRequest?.tool_args).toEqual({ target: 'prod', note: 'token [REDACTED]' });
    expect(readFileSync(logFile, 'utf8').split('\n').length).toBeGreaterThan(40);

    const files = [...filesUnder(join(root, 'progress'), ['artifacts']), logFile, cassette];
    expect(files.length).toBeGreaterThan(20);
    expect(findCanary(files, canary, tmpdir())).toEqual([]);
    expect(readFileSync(cassette, 'utf8')).toContain('[REDACTED');
  }, 60_000);
});

it('the scan finds every spelling of a canary that was written (control)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'agency-canary-governed-control-'));
  const canary = makeCanary();
  const spellings = canarySpellings(canary);
  mkdirSync(join(dir, 'progress', 'artifacts'), { recursive: true });
  spellings.forEach(([, text], index) => writeFileSync(join(dir, `f${index}.txt`), `x ${text} y`));
  writeFileSync(join(dir, 'progress', 'artifacts', 'deliverable.txt'), canary);
  const hits = findCanary(filesUnder(dir, ['progress/artifacts']), canary, dir);
  // Each file holds at least the spelling it was written with.
  for (const index of spellings.keys()) expect(hits.some((hit) => hit.startsWith(`f${index}.txt: `))).toBe(true);
  expect(hits.some((hit) => hit.startsWith('progress/'))).toBe(false);
  expect(spellings.map(([name]) => name)).toEqual(expect.arrayContaining(['plain', 'URL-encoded', 'base64@2']));
});
