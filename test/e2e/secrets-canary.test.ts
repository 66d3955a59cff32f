// Plants canary secrets everywhere a run can carry them (environment, tool arguments, HTTP headers, URLs, tool
// output, thrown errors, model output, provider errors), runs agents that record cassettes and write logs, then
// searches every file written for any 10 characters of the random core of any canary. Acceptance: 0 hits.
//
// To cover a new persisted file, write it under `dir` in `persistExtras`. A governed task's files (journal, state,
// plan, approvals, step records, checkpoints) are covered by secrets-canary-governed.test.ts.
import { randomBytes } from 'node:crypto';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { APICallError, type LanguageModelV4StreamPart } from '@ai-sdk/provider';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { LLMAgent } from '../../src/agent/llm-agent.ts';
import { AgencyError } from '../../src/core/errors.ts';
import { createRedactor, defaultRedactor, type Redactor, redactError } from '../../src/core/redact.ts';
import { createCredentialBroker } from '../../src/credentials/credential-broker.ts';
import { env, file } from '../../src/credentials/credential-source.ts';
import { toolCredentials, wrapToolWithCredentials } from '../../src/tools/credential-tool.ts';
import { recordModel } from '../../src/model/cassette/record-model.ts';
import { createLogger, type Logger } from '../../src/obs/logger.ts';
import { contentFilter } from '../../src/policy/content-filter.ts';
import { createPolicy } from '../../src/policy/create-policy.ts';
import { policyProcessor } from '../../src/policy/policy-processor.ts';
import { ScriptedModel } from '../../src/testing/scripted-model.ts';
import { defineTool } from '../../src/tools/define-tool.ts';

type Canary = { name: string; value: string; core: string };
type Values = Record<'openai' | 'anthropic' | 'github' | 'aws' | 'env-credential' | 'file-credential', string>;

function makeCanaries(): Canary[] {
  const hex = (bytes: number) => randomBytes(bytes).toString('hex');
  const canary = (name: string, core: string, wrap: (core: string) => string) => ({ name, core, value: wrap(core) });
  return [
    canary('openai', hex(16), (core) => `sk-canary-${core}`),
    canary('anthropic', hex(16), (core) => `sk-ant-canary-${core}`),
    canary('github', hex(16), (core) => `ghp_canary${core}`),
    canary('aws', hex(8).toUpperCase(), (core) => `AKIA${core}`),
    canary('env-credential', hex(12), (core) => `cred-canary-${core}`),
    canary('file-credential', hex(12), (core) => `filecred-canary-${core}`),
  ];
}

/** Every file under `dir`, and every place a canary's random core shows up in one. */
function scan(dir: string, canaries: readonly Canary[]) {
  const files: string[] = [];
  const walk = (at: string) => {
    for (const entry of readdirSync(at, { withFileTypes: true })) {
      const path = join(at, entry.name);
      if (entry.isDirectory()) walk(path);
      else files.push(path);
    }
  };
  walk(dir);
  const hits: string[] = [];
  for (const path of files) {
    const text = readFileSync(path, 'utf8');
    for (const { name, core } of canaries) {
      const whole = text.split(core).length - 1;
      // Any 10 characters of a random core count too: they catch a secret cut in two and half of it written.
      const pieces = windows(core, 10).filter((piece) => text.includes(piece)).length;
      if (pieces > 0) hits.push(`${relative(dir, path)}: ${name} ×${whole}${whole === 0 ? ' (a fragment)' : ''}`);
    }
  }
  return { files: files.map((path) => relative(dir, path)).sort(), hits };
}

function windows(text: string, size: number): string[] {
  return Array.from({ length: text.length - size + 1 }, (_, start) => text.slice(start, start + size));
}

function tools(c: Values) {
  const httpFetch = defineTool({
    name: 'http_fetch',
    description: 'Fetches a URL',
    input: z.object({ url: z.string(), headers: z.record(z.string(), z.string()) }),
    effects: 'network',
    execute: ({ url, headers }, context) => ({
      requested: url,
      sentHeaders: { ...headers, authorization: `Bearer ${toolCredentials(context).get('deploy')}` },
      env: { ...toolCredentials(context).env },
    }),
  });
  const sandboxExec = defineTool({
    name: 'sandbox_exec',
    description: 'Runs a command',
    input: z.object({ cmd: z.string() }),
    effects: 'exec',
    execute: ({ cmd }, context) => {
      const keyFile = toolCredentials(context).files['ssh-key'] ?? '';
      return `$ ${cmd}\nkey file ${keyFile}:\n${readFileSync(keyFile, 'utf8')}\nAWS_SECRET_ACCESS_KEY=${c.openai}`;
    },
  });
  const explode = defineTool({
    name: 'explode',
    description: 'Always fails',
    input: z.object({}),
    effects: 'read',
    execute: () => {
      throw new AgencyError('tool_failed', `upstream rejected ${c.openai} for ${c['env-credential']}`, {
        details: { url: `https://api.example.com/?api_key=${c.github}`, token: c.anthropic },
      });
    },
  });
  const echo = defineTool({
    name: 'echo',
    description: 'Echoes text',
    input: z.object({ text: z.string() }),
    effects: 'read',
    execute: ({ text }) => text,
  });
  return { httpFetch, sandboxExec, explode, echo };
}

async function scenario(dir: string, canaries: readonly Canary[], redactor: Redactor | undefined) {
  const c = Object.fromEntries(canaries.map(({ name, value }) => [name, value])) as Values;
  const secrets = mkdtempSync(join(tmpdir(), 'agency-canary-secrets-'));
  const keyFile = join(secrets, 'ssh_key');
  writeFileSync(keyFile, `${c['file-credential']}\n`);
  chmodSync(keyFile, 0o600);
  const withRedactor = redactor ? { redactor } : {};
  const logger: Logger = createLogger({
    level: 'trace',
    destination: join(dir, 'logs', 'agency.jsonl'),
    ...withRedactor,
  });
  const brokerTmp = join(dir, 'credential-mounts');
  mkdirSync(brokerTmp);
  const broker = createCredentialBroker({
    sources: [
      { name: 'deploy', tools: ['http_fetch'], from: env('DEPLOY_TOKEN') },
      { name: 'ssh-key', tools: ['sandbox_exec'], from: file(keyFile), mount: 'file' },
    ],
    env: { DEPLOY_TOKEN: c['env-credential'], OPENAI_API_KEY: c.openai },
    tmpDir: brokerTmp,
    logger,
    ...withRedactor,
  });
  await broker.preload();
  const t = tools(c);
  const agentTools = [
    wrapToolWithCredentials(t.httpFetch, broker),
    wrapToolWithCredentials(t.sandboxExec, broker),
    t.explode,
    t.echo,
  ];
  const audit = join(dir, 'audit.jsonl');
  const policy = createPolicy({
    rules: [
      contentFilter({ id: 'no-aws-keys', stages: ['tool-input'], patterns: [/AKIA[A-Z0-9]{16}/], action: 'block' }),
    ],
    onAudit: (event) => writeFileSync(audit, `${JSON.stringify(event)}\n`, { flag: 'a' }),
    ...withRedactor,
  });
  const model = new ScriptedModel([
    {
      toolCalls: [
        {
          name: 'http_fetch',
          input: {
            url: `https://api.example.com/v1/items?api_key=${c.github}&token=${c['env-credential']}`,
            headers: { Authorization: `Bearer ${c.openai}`, 'x-api-key': c.anthropic },
          },
        },
        { name: 'sandbox_exec', input: { cmd: `deploy --token ${c['env-credential']}` } },
        { name: 'explode', input: {} },
        { name: 'echo', input: { text: `aws ${c.aws} password=${c['env-credential']}` } },
      ],
    },
    `Done. Keys seen: ${c.openai}, ${c.github}, ${c['file-credential']}.`,
  ]);
  const agent = new LLMAgent({
    name: 'canary',
    model: recordModel(model, join(dir, 'cassettes', 'run.jsonl'), withRedactor),
    tools: agentTools,
    processors: [policyProcessor(policy, { tools: agentTools, ...withRedactor })],
  });
  const result = await agent.execute(
    { input: `Use my key ${c.openai} to deploy` },
    { onEvent: (event) => logger.info({ event }, `agent event ${event.type}`) },
  );
  logger.info({ result }, 'run finished');

  // A provider error that echoes the key, streamed, recorded and logged.
  const failing = new ScriptedModel([
    {
      error: new APICallError({
        message: `Incorrect API key provided: ${c.openai}`,
        url: `https://api.example.com/v1/chat?key=${c.github}`,
        requestBodyValues: { messages: [{ role: 'user', content: `token ${c['env-credential']}` }] },
        statusCode: 401,
        responseHeaders: { 'set-cookie': `session=${c.anthropic}` },
        responseBody: JSON.stringify({ error: { message: `bad key ${c.openai}` } }),
      }),
    },
  ]);
  const stream = new LLMAgent({
    name: 'failing',
    model: recordModel(failing, join(dir, 'cassettes', 'failing.jsonl'), withRedactor),
  }).stream({
    input: `again with ${c.anthropic}`,
  });
  for await (const event of stream) logger.debug({ event }, 'stream event');
  const failed = await stream.result;
  logger.error({ err: AgencyError.from(failed.error?.message) }, 'run failed');
  logger.warn(`environment: OPENAI_API_KEY=${c.openai} DEPLOY_TOKEN=${c['env-credential']}`);

  // A streamed answer that splits secrets across text deltas. Deltas are not logged one by one (see docs/policy.md).
  const split = splitStreamModel([
    `Here: ${c.openai.slice(0, 9)}`,
    c.openai.slice(9),
    ` and ${c['env-credential'].slice(0, 14)}`,
    c['env-credential'].slice(14),
  ]);
  const splitRun = new LLMAgent({
    name: 'split',
    model: recordModel(split, join(dir, 'cassettes', 'split.jsonl'), withRedactor),
  }).stream({ input: 'stream it' });
  for await (const event of splitRun) if (event.type !== 'text-delta') logger.info({ event }, 'stream event');

  persistExtras(dir, redactor ?? defaultRedactor, {
    thrown: new AgencyError('internal', `boom ${c['env-credential']} ${c.aws}`),
  });
  return { result, failed, model };
}

function splitStreamModel(deltas: string[]) {
  const model = new ScriptedModel(['unused']);
  model.doStream = async () => ({
    stream: new ReadableStream<LanguageModelV4StreamPart>({
      start(controller) {
        controller.enqueue({ type: 'stream-start', warnings: [] });
        controller.enqueue({ type: 'text-start', id: 't' });
        for (const delta of deltas) controller.enqueue({ type: 'text-delta', id: 't', delta });
        controller.enqueue({ type: 'text-end', id: 't' });
        controller.enqueue({
          type: 'finish',
          finishReason: { unified: 'stop', raw: 'stop' },
          usage: {
            inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
            outputTokens: { total: 1, text: 1, reasoning: 0 },
          },
        });
        controller.close();
      },
    }),
  });
  return model;
}

// Other files agency persists outside a governed task; a task's own are scanned by secrets-canary-governed.test.ts.
function persistExtras(dir: string, redactor: Redactor, { thrown }: { thrown: AgencyError }) {
  writeFileSync(join(dir, 'error.json'), JSON.stringify(redactError(thrown, redactor)));
}

describe.each([
  ['an explicit redactor', () => createRedactor()],
  ['the default redactor', () => undefined],
])('secrets canary with %s', (_name, redactorFor) => {
  it('no canary fragment reaches any persisted file or log line', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'agency-canary-'));
    const canaries = makeCanaries();
    const { result, failed, model } = await scenario(dir, canaries, redactorFor());

    // The run really carried the canaries: the model was sent them, tools ran and failed as planned.
    const sent = JSON.stringify(model.calls[1]?.options.prompt);
    for (const canary of canaries.filter(({ name }) => name !== 'aws'))
      expect(sent, canary.name).toContain(canary.value);
    expect(result.calls.map((step) => [step.name, step.error?.code ?? 'ok']).sort()).toEqual([
      ['echo', 'policy_denied'],
      ['explode', 'tool_failed'],
      ['http_fetch', 'ok'],
      ['sandbox_exec', 'ok'],
    ]);
    expect(failed.error?.code).toBe('model_fatal');

    const { files, hits } = scan(dir, canaries);
    expect(hits).toEqual([]);
    expect(files).toEqual([
      'audit.jsonl',
      'cassettes/failing.jsonl',
      'cassettes/run.jsonl',
      'cassettes/split.jsonl',
      'error.json',
      'logs/agency.jsonl',
    ]);
    expect(readdirSync(join(dir, 'credential-mounts'))).toEqual([]);
    expect(readFileSync(join(dir, 'logs', 'agency.jsonl'), 'utf8').split('\n').length).toBeGreaterThan(10);
    expect(readFileSync(join(dir, 'cassettes', 'run.jsonl'), 'utf8')).toContain('[REDACTED');
  });
});

it('the scan finds a canary that was written unredacted (control)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'agency-canary-control-'));
  const canaries = makeCanaries();
  mkdirSync(join(dir, 'nested'));
  writeFileSync(join(dir, 'nested', 'leak.txt'), `oops ${canaries[4]?.value} ${canaries[4]?.value}`);
  writeFileSync(join(dir, 'half.txt'), `cut ${canaries[0]?.value.slice(0, 25)}`);
  expect(scan(dir, canaries).hits).toEqual(['half.txt: openai ×0 (a fragment)', 'nested/leak.txt: env-credential ×2']);
  expect(existsSync(dir) && statSync(dir).isDirectory()).toBe(true);
});
