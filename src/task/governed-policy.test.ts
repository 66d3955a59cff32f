import { describe, expect, it } from 'vitest';
import { createPolicy } from '../policy/create-policy.ts';
import { toolDenylist } from '../policy/tool-rules.ts';
import type { SpecFile } from './contracts/spec.ts';
import { runPolicyFor, specApprovalRules } from './governed-policy.ts';

const approvals = (changes: Partial<SpecFile['approvals']> = {}): SpecFile['approvals'] => ({
  mode: 'file',
  require_plan: true,
  require_tools: [],
  expires_in_ms: 60_000,
  ...changes,
});

const call = (name: string) => ({ kind: 'tool-call', tool: { name, effects: 'write' }, input: {} }) as const;

describe('the spec as rules of the run policy', () => {
  it('turns require_plan and require_tools into approval rules', () => {
    expect(specApprovalRules(approvals()).map((rule) => rule.id)).toEqual(['spec:require-plan']);
    expect(specApprovalRules(approvals({ require_plan: false })).map((rule) => rule.id)).toEqual([]);
    const rules = specApprovalRules(approvals({ require_tools: ['fs_write'] }));
    expect(rules.map((rule) => rule.id)).toEqual(['spec:require-plan', 'spec:require-tools']);
  });

  it("adds them after the operator's rules, where an operator denial still beats the spec's approval", () => {
    const spec = { approvals: approvals({ require_tools: ['fs_write', 'http_post'] }) } as SpecFile;
    const policy = runPolicyFor(spec, createPolicy({ rules: [toolDenylist(['http_post'])] }));
    expect(policy.rules.map((rule) => rule.id)).toEqual(['tool-denylist', 'spec:require-plan', 'spec:require-tools']);
    expect(policy.evaluate(call('http_post'))).toMatchObject({ outcome: 'deny', ruleId: 'tool-denylist' });
    expect(policy.evaluate(call('fs_write'))).toMatchObject({
      outcome: 'require-approval',
      ruleId: 'spec:require-tools',
    });
    expect(policy.evaluate({ kind: 'plan', plan: {} })).toMatchObject({ outcome: 'require-approval' });
    expect(runPolicyFor({ approvals: approvals({ require_plan: false }) } as SpecFile, undefined).rules).toEqual([]);
  });
});
