import { existsSync } from 'node:fs';
import { mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LLMAgent } from '../agent/llm-agent.ts';
import type { Processor } from '../agent/processors.ts';
import { createPolicy } from '../policy/create-policy.ts';
import { policyProcessor } from '../policy/policy-processor.ts';
import type { PolicyAuditEvent } from '../policy/policy-types.ts';
import { toolDenylist } from '../policy/tool-rules.ts';
import { ScriptedModel } from '../testing/scripted-model.ts';
import { connectMcp } from './connect-mcp.ts';
import type { McpConnection } from './mcp-connection.ts';

const FILESYSTEM = fileURLToPath(
  new URL('../../node_modules/@modelcontextprotocol/server-filesystem/dist/index.js', import.meta.url),
);

let root: string;
let filesystem: McpConnection;

beforeAll(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), 'agency-mcp-fs-')));
  await writeFile(join(root, 'notes.txt'), 'hello from disk');
  filesystem = await connectMcp({
    name: 'filesystem',
    transport: { type: 'stdio', command: process.execPath, args: [FILESYSTEM, root] },
    overrides: {
      read_text_file: { effects: 'read' },
      read_file: { effects: 'read' },
      list_directory: { effects: 'read' },
      write_file: { effects: 'write' },
      edit_file: { effects: 'write' },
    },
  });
});

afterAll(async () => {
  await filesystem?.close();
  await rm(root, { recursive: true, force: true });
});

/**
 * The policy engine denies every tool whose effects are `write` or `exec` (the default for MCP tools), and every
 * tool whose name says it writes. Its audit events are collected.
 */
function denyWrites(connection: McpConnection, audit: PolicyAuditEvent[]): Processor {
  const policy = createPolicy({
    rules: [
      toolDenylist(
        ['filesystem__write_file', 'filesystem__edit_file', 'filesystem__move_file', 'filesystem__create_directory'],
        { id: 'no-fs-writes' },
      ),
    ],
  });
  return policyProcessor(policy, { tools: connection.tools(), onAudit: (event) => audit.push(event) });
}

function script(path: string) {
  return new ScriptedModel([
    {
      toolCalls: [
        { id: 'w', name: 'filesystem__write_file', input: { path, content: 'should never land' } },
        { id: 'r', name: 'filesystem__read_text_file', input: { path: join(root, 'notes.txt') } },
      ],
    },
    'Read the notes; writing was refused.',
  ]);
}

describe('server-filesystem under a policy that denies writes', () => {
  it('exposes the write and read tools under the server name, with the effects given', () => {
    const effects = Object.fromEntries(filesystem.tools().map((tool) => [tool.name, tool.effects]));
    expect(effects).toMatchObject({
      filesystem__write_file: 'write',
      filesystem__read_text_file: 'read',
      filesystem__read_file: 'read',
      filesystem__move_file: 'exec',
    });
  });

  it('blocks the write (the file never appears) and lets the read through', async () => {
    const target = join(root, 'pwned.txt');
    const model = script(target);
    const audit: PolicyAuditEvent[] = [];
    const agent = new LLMAgent({
      name: 'fs',
      model,
      tools: filesystem.tools(),
      processors: [denyWrites(filesystem, audit)],
    });
    const result = await agent.execute({ input: 'Write pwned.txt, then read notes.txt' });

    expect(result).toMatchObject({ finishReason: 'stop', output: 'Read the notes; writing was refused.' });
    expect(existsSync(target)).toBe(false);
    expect(result.calls.map((step) => [step.name, step.error?.code ?? 'ok'])).toEqual([
      ['filesystem__write_file', 'policy_denied'],
      ['filesystem__read_text_file', 'ok'],
    ]);
    const prompt = model.calls[1]?.options.prompt ?? [];
    const results = prompt.flatMap((message) => (message.role === 'tool' ? message.content : []));
    expect(results).toEqual([
      expect.objectContaining({
        toolCallId: 'w',
        output: { type: 'error-text', value: expect.stringContaining('is denied by policy') },
      }),
      expect.objectContaining({ toolCallId: 'r', output: { type: 'json', value: { content: 'hello from disk' } } }),
    ]);
    expect(audit).toEqual([
      expect.objectContaining({ type: 'policy.blocked', ruleId: 'no-fs-writes', target: 'filesystem__write_file' }),
    ]);
  });

  it('control: without the policy the same script does write the file', async () => {
    const target = join(root, 'allowed.txt');
    const agent = new LLMAgent({ name: 'fs', model: script(target), tools: filesystem.tools() });
    const result = await agent.execute({ input: 'Write allowed.txt, then read notes.txt' });
    expect(result.calls.map((step) => step.error?.code ?? 'ok')).toEqual(['ok', 'ok']);
    expect(await readFile(target, 'utf8')).toBe('should never land');
  });

  it('leaves paths outside the root to the server, which refuses them as an error result', async () => {
    const model = new ScriptedModel([
      { toolCalls: [{ name: 'filesystem__read_text_file', input: { path: '/etc/passwd' } }] },
      'Refused.',
    ]);
    const result = await new LLMAgent({ name: 'fs', model, tools: filesystem.tools() }).execute({ input: 'Read' });
    expect(result.calls[0]?.error).toMatchObject({
      code: 'tool_failed',
      message: expect.stringContaining('outside allowed directories'),
    });
  });
});
