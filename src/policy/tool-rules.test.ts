import { describe, expect, it } from 'vitest';
import type { ToolEffect } from '../core/tool-types.ts';
import { createPolicy } from './create-policy.ts';
import { nameMatcher } from './glob.ts';
import type { PolicyRequest } from './policy-types.ts';
import { requireApprovalFor, requirePlanApproval, toolAllowlist, toolDenylist } from './tool-rules.ts';

const call = (name: string, effects: ToolEffect = 'read', input: unknown = {}): PolicyRequest => ({
  kind: 'tool-call',
  tool: { name, effects },
  input,
});

describe('nameMatcher', () => {
  it.each([
    ['fs_*', 'fs_read', true],
    ['fs_*', 'fs_', true],
    ['fs_*', 'xfs_read', false],
    ['fs_?ead', 'fs_read', true],
    ['http.fetch', 'httpXfetch', false],
    ['mcp_*_delete', 'mcp_github_delete', true],
    ['FS_READ', 'fs_read', false],
  ])('%s against %s is %s', (pattern, name, expected) => {
    expect(nameMatcher(pattern)(name)).toBe(expected);
  });
});

describe('tool allowlist and denylist', () => {
  it('the allowlist denies tools outside it and ignores other request kinds', () => {
    const rule = toolAllowlist(['fs_*', 'http_fetch']);
    expect(rule.check(call('fs_read'))).toBeUndefined();
    expect(rule.check(call('http_fetch'))).toBeUndefined();
    expect(rule.check(call('sandbox_exec'))).toEqual({
      effect: 'deny',
      reason: 'tool "sandbox_exec" is not in the allowlist',
    });
    expect(rule.check({ kind: 'plan', plan: {} })).toBeUndefined();
  });

  it('the denylist denies tools in it', () => {
    const rule = toolDenylist('shell_*', { id: 'no-shell' });
    expect(rule.id).toBe('no-shell');
    expect(rule.check(call('shell_run'))).toMatchObject({ effect: 'deny' });
    expect(rule.check(call('fs_read'))).toBeUndefined();
  });
});

describe('requireApprovalFor', () => {
  it('gates by name', () => {
    const rule = requireApprovalFor(['sandbox_exec', 'http_post']);
    expect(rule.check(call('http_post', 'network'))).toEqual({
      effect: 'require-approval',
      reason: 'tool "http_post" requires approval',
    });
    expect(rule.check(call('http_fetch', 'network'))).toBeUndefined();
  });

  it('gates by effect', () => {
    const rule = requireApprovalFor({ effects: ['exec', 'write'] });
    expect(rule.check(call('make', 'exec'))).toEqual({
      effect: 'require-approval',
      reason: 'tools with "exec" effects require approval',
    });
    expect(rule.check(call('fs_read', 'read'))).toBeUndefined();
  });

  it('skips calls that `unless` lets through', () => {
    const rule = requireApprovalFor({
      tools: 'http_post',
      unless: (request) => String((request.input as { url?: string }).url).startsWith('https://hooks.example.com/'),
    });
    expect(rule.check(call('http_post', 'network', { url: 'https://hooks.example.com/x' }))).toBeUndefined();
    expect(rule.check(call('http_post', 'network', { url: 'https://evil.example/x' }))).toMatchObject({
      effect: 'require-approval',
    });
  });

  it('plans require approval with requirePlanApproval', () => {
    const policy = createPolicy({ rules: [requirePlanApproval()] });
    expect(policy.evaluate({ kind: 'plan', plan: { goal: 'x' } })).toEqual({
      outcome: 'require-approval',
      reason: 'plans require approval',
      ruleId: 'plan-approval',
    });
    expect(policy.evaluate(call('fs_read')).outcome).toBe('allow');
  });
});
