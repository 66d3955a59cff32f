import { describe, expect, it } from 'vitest';
import type { ToolCallPart } from '../core/messages.ts';
import { createRedactor } from '../core/redact.ts';
import type { ToolCallOutcome } from '../core/tool-types.ts';
import { contentFilter } from './content-filter.ts';
import { createPolicy } from './create-policy.ts';
import { policyProcessor } from './policy-processor.ts';
import type { PolicyAuditEvent } from './policy-types.ts';
import { rateLimit } from './rate-limit.ts';
import { requireApprovalFor } from './tool-rules.ts';

const call = (toolName: string, input: unknown = {}): ToolCallPart => ({
  type: 'tool-call',
  toolCallId: 'c1',
  toolName,
  input,
});
const base = { redactor: createRedactor(), now: () => 0 };

describe('policyProcessor hooks', () => {
  it('treats a tool it was not told about as exec, the most guarded effect', async () => {
    const policy = createPolicy({ rules: [requireApprovalFor({ effects: ['exec'] })] });
    const known = policyProcessor(policy, { ...base, tools: [{ name: 'fs_read', effects: 'read' }] });
    expect(await known.preTool({ call: call('fs_read') })).toBeUndefined();
    expect(await known.preTool({ call: call('mystery') })).toMatchObject({
      suspend: { kind: 'approval', tool: 'mystery' },
    });
  });

  it('audits the change and takes the rate-limit token only once the call is approved', async () => {
    let t = 0;
    const audit: PolicyAuditEvent[] = [];
    const policy = createPolicy({
      rules: [
        rateLimit({ tools: 'deploy', limit: 1, intervalMs: 1000, now: () => t }),
        contentFilter({ id: 'secrets', stages: ['tool-input'], redactor: createRedactor(), action: 'redact' }),
        requireApprovalFor('deploy'),
      ],
    });
    const processor = policyProcessor(policy, { ...base, onAudit: (event) => audit.push(event) });
    const input = { note: 'key sk-proj-AbCdEfGhIjKlMnOpQrSt01' };
    const suspended = await processor.preTool({ call: call('deploy', input) });
    expect(suspended).toMatchObject({ suspend: { input: { note: 'key [REDACTED:openai]' } } });
    expect(audit).toEqual([]);
    const approved = await processor.preTool({ call: call('deploy', input), resumeData: 'approved' });
    expect(approved).toEqual({ call: call('deploy', { note: 'key [REDACTED:openai]' }) });
    expect(audit.map((event) => event.type)).toEqual(['policy.modified']);
    // The token was taken on approval; a second call within the interval is denied outright.
    expect(await processor.preTool({ call: call('deploy', input) })).toMatchObject({
      block: expect.stringContaining('rate limit'),
    });
    t = 1000;
    expect(
      await processor.preTool({ call: call('deploy', input), resumeData: { decision: 'approved' } }),
    ).toMatchObject({ call: {} });
  });

  it('withholds a denied tool output and tells the model why', async () => {
    const policy = createPolicy({
      rules: [contentFilter({ id: 'pii', stages: ['tool-output'], patterns: [/\d{3}-\d{2}-\d{4}/], action: 'block' })],
    });
    const outcome: ToolCallOutcome = {
      toolCallId: 'c1',
      toolName: 'lookup',
      ok: true,
      output: 'SSN 123-45-6789',
      modelOutput: { type: 'text', value: 'SSN 123-45-6789' },
      durationMs: 1,
    };
    const verdict = await policyProcessor(policy, base).postTool({ call: call('lookup'), outcome });
    expect(verdict).toEqual({
      outcome: {
        toolCallId: 'c1',
        toolName: 'lookup',
        ok: false,
        error: {
          code: 'policy_denied',
          message:
            'The output of tool "lookup" was withheld by policy: output of tool "lookup" matches content filter "pii"',
        },
        modelOutput: {
          type: 'error-text',
          value:
            'The output of tool "lookup" was withheld by policy: output of tool "lookup" matches content filter "pii"',
        },
        durationMs: 1,
      },
    });
    expect(JSON.stringify(verdict)).not.toContain('123-45');
  });

  it('treats anything but a clear approval as a denial', async () => {
    const policy = createPolicy({ rules: [requireApprovalFor('x')] });
    const processor = policyProcessor(policy, base);
    for (const answer of [false, 'yes', null, { approved: 'true' }, ['approved'], { decision: 'denied' }])
      expect(await processor.preTool({ call: call('x'), resumeData: answer })).toEqual({
        block: 'approval denied',
      });
  });
});
