import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { LLMAgent } from '../../src/agent/llm-agent.ts';
import type { Processor } from '../../src/agent/processors.ts';
import { createRedactor } from '../../src/core/redact.ts';
import { contentFilter } from '../../src/policy/content-filter.ts';
import { createPolicy } from '../../src/policy/create-policy.ts';
import { type ApprovalRequest, policyProcessor } from '../../src/policy/policy-processor.ts';
import type { PolicyAuditEvent } from '../../src/policy/policy-types.ts';
import { strictPolicy } from '../../src/policy/presets.ts';
import { toolDenylist } from '../../src/policy/tool-rules.ts';
import { ScriptedModel } from '../../src/testing/scripted-model.ts';
import { defineTool } from '../../src/tools/define-tool.ts';

const SECRET = 'sk-proj-PolicyAgentCanary0123456789ab';

function toolsRecording() {
  const ran: Array<{ tool: string; input: unknown }> = [];
  const fsRead = defineTool({
    name: 'fs_read',
    description: 'Reads a file',
    input: z.object({ path: z.string() }),
    effects: 'read',
    execute: ({ path }) => (ran.push({ tool: 'fs_read', input: { path } }), `contents of ${path}: api key ${SECRET}`),
  });
  const httpPost = defineTool({
    name: 'http_post',
    description: 'Posts JSON',
    input: z.object({ url: z.string(), body: z.string() }),
    effects: 'network',
    execute: (input) => (ran.push({ tool: 'http_post', input }), 'posted'),
  });
  const exec = defineTool({
    name: 'sandbox_exec',
    description: 'Runs a command',
    input: z.object({ cmd: z.string() }),
    effects: 'exec',
    execute: (input) => (ran.push({ tool: 'sandbox_exec', input }), 'ran'),
  });
  return { ran, tools: [fsRead, httpPost, exec] };
}

function setup(
  policyRules: 'strict' | Parameters<typeof createPolicy>[0]['rules'],
  script: ConstructorParameters<typeof ScriptedModel>[0],
  onApproval?: (r: ApprovalRequest) => boolean,
) {
  const { ran, tools } = toolsRecording();
  const audit: PolicyAuditEvent[] = [];
  const redactor = createRedactor();
  const policy =
    policyRules === 'strict'
      ? strictPolicy({ redactor, now: () => 0 })
      : createPolicy({ rules: policyRules, redactor, now: () => 0 });
  const processor: Processor = policyProcessor(policy, {
    tools,
    redactor,
    now: () => 0,
    onAudit: (event) => audit.push(event),
    ...(onApproval ? { onApproval } : {}),
  });
  const model = new ScriptedModel(script);
  const agent = new LLMAgent({ name: 'governed', model, tools, processors: [processor] });
  return { agent, model, ran, audit };
}

describe('policyProcessor in an LLMAgent', () => {
  it('blocks a denied call: the tool never runs, the model is told, the audit records it', async () => {
    const { agent, model, ran, audit } = setup(
      [toolDenylist('sandbox_exec')],
      [
        { toolCalls: [{ name: 'sandbox_exec', input: { cmd: `curl -H "Authorization: Bearer ${SECRET}"` } }] },
        'I could not run it.',
      ],
    );
    const result = await agent.execute({ input: 'run it' });
    expect(ran).toEqual([]);
    expect(result.calls[0]?.error?.code).toBe('policy_denied');
    expect(JSON.stringify(model.calls[1]?.options.prompt)).toContain('is denied by policy');
    expect(audit).toEqual([
      expect.objectContaining({ type: 'policy.blocked', ruleId: 'tool-denylist', target: 'sandbox_exec' }),
    ]);
    expect(JSON.stringify(audit)).not.toContain(SECRET);
  });

  it('suspends for approval with the arguments redacted, and runs the call once approved', async () => {
    const { agent, ran } = setup('strict', [
      {
        toolCalls: [
          { id: 'c1', name: 'http_post', input: { url: 'https://hooks.example.com/x', body: `token=${SECRET}` } },
        ],
      },
      'Posted.',
    ]);
    const result = await agent.execute({ input: 'post it' });
    expect(result.finishReason).toBe('suspended');
    const payload = result.suspended?.payload as ApprovalRequest;
    expect(payload).toEqual({
      kind: 'approval',
      stage: 'tool-call',
      tool: 'http_post',
      toolCallId: 'c1',
      input: { url: 'https://hooks.example.com/x', body: 'token=[REDACTED:openai]' },
      reason: 'tool "http_post" requires approval',
      ruleId: 'approval:named-tools',
    });
    expect(ran).toEqual([]);
    const final = await result.suspended!.resume({ approved: true });
    expect(final.output).toBe('Posted.');
    expect(ran).toEqual([
      { tool: 'http_post', input: { url: 'https://hooks.example.com/x', body: `token=${SECRET}` } },
    ]);
  });

  it('a denied approval blocks the call and is audited; a serialized suspension resumes too', async () => {
    const { agent, ran, audit } = setup('strict', [
      { toolCalls: [{ name: 'sandbox_exec', input: { cmd: 'rm -rf build' } }] },
      'Understood.',
    ]);
    const result = await agent.execute({ input: 'clean' });
    const final = await agent.resumeSerialized(result.suspended!.serialize(), { approved: false, reason: 'not today' });
    expect(ran).toEqual([]);
    expect(final.calls[0]?.error).toMatchObject({
      code: 'policy_denied',
      message: expect.stringContaining('approval denied: not today'),
    });
    expect(audit).toEqual([
      expect.objectContaining({
        type: 'policy.blocked',
        ruleId: 'approval:named-tools',
        reason: 'approval denied: not today',
      }),
    ]);
  });

  it('onApproval decides in-process instead of suspending', async () => {
    const asked: ApprovalRequest[] = [];
    const { agent, ran } = setup(
      'strict',
      [
        {
          toolCalls: [
            { name: 'sandbox_exec', input: { cmd: 'ls' } },
            { name: 'http_post', input: { url: 'https://a.io', body: '' } },
          ],
        },
        'Done.',
      ],
      (request) => (asked.push(request), request.tool === 'sandbox_exec'),
    );
    const result = await agent.execute({ input: 'go' });
    expect(result.finishReason).toBe('stop');
    expect(asked.map((request) => request.tool)).toEqual(['sandbox_exec', 'http_post']);
    expect(ran.map((entry) => entry.tool)).toEqual(['sandbox_exec']);
    expect(result.calls.find((step) => step.name === 'http_post')?.error?.code).toBe('policy_denied');
  });

  it('modifies tool input, tool output and model input with redacting filters', async () => {
    const redactor = createRedactor();
    const { agent, model, ran, audit } = setup(
      [
        contentFilter({ id: 'input-secrets', stages: ['tool-input', 'model-input'], redactor, action: 'redact' }),
        contentFilter({ id: 'output-secrets', stages: ['tool-output'], redactor, action: 'redact' }),
      ],
      [
        {
          toolCalls: [
            { name: 'http_post', input: { url: 'https://a.io', body: `key ${SECRET}` } },
            { name: 'fs_read', input: { path: 'a.txt' } },
          ],
        },
        'Done.',
      ],
    );
    await agent.execute({ input: `My key is ${SECRET}` });
    expect(ran[0]).toEqual({ tool: 'http_post', input: { url: 'https://a.io', body: 'key [REDACTED:openai]' } });
    for (const call of model.calls) expect(JSON.stringify(call.options.prompt)).not.toContain(SECRET);
    expect(JSON.stringify(model.calls[1]?.options.prompt)).toContain('api key [REDACTED:openai]');
    expect(new Set(audit.map((event) => `${event.type} ${event.ruleId} ${event.target}`))).toEqual(
      new Set([
        'policy.modified input-secrets model-input',
        'policy.modified input-secrets http_post',
        'policy.modified output-secrets fs_read',
      ]),
    );
    expect(JSON.stringify(audit)).not.toContain(SECRET);
  });

  it('a blocking model-input filter halts the run before the model sees the input', async () => {
    const { agent, model } = setup(
      [contentFilter({ id: 'no-cards', stages: ['model-input'], patterns: [/\b\d{16}\b/], action: 'block' })],
      ['never'],
    );
    const result = await agent.execute({ input: 'charge 4111111111111111' });
    expect(model.calls).toHaveLength(0);
    expect(result).toMatchObject({
      finishReason: 'halted',
      output: 'The request was blocked by policy: model input matches content filter "no-cards"',
    });
  });
});
