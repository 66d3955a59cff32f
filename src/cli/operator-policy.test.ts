import { describe, expect, it } from 'vitest';
import type { PolicyRequest } from '../policy/policy-types.ts';
import { parseAllowlist } from '../tools/guards/network-allowlist.ts';
import type { OperatorSettings } from './operator-config.ts';
import { operatorPolicy, operatorWarnings } from './operator-policy.ts';
import type { RunSettings } from './task-config.ts';

function settings(operator: Partial<OperatorSettings> = {}, run: Partial<RunSettings> = {}): RunSettings {
  const allow = operator.allow ?? [];
  const full: OperatorSettings = {
    policy: 'default',
    sandbox: 'bwrap',
    allow,
    allowlist: parseAllowlist(allow),
    offline: false,
    requireTools: [],
    memory: undefined,
    where: '/etc/agency.json',
    ...operator,
  };
  return { operator: full, sandbox: full.sandbox, offline: full.offline, allow, requireTools: [], ...run };
}

const call = (name: string, effects: 'read' | 'write' | 'network' | 'exec', input: unknown = {}): PolicyRequest => ({
  kind: 'tool-call',
  tool: { name, effects },
  input,
});

const outcome = (run: RunSettings, request: PolicyRequest) => operatorPolicy(run).evaluate(request).outcome;

describe('the policies of agency run', () => {
  it('default: plans, sandbox_exec, http_post and off-list fetches need approval; fs_write and test_runner do not', () => {
    const run = settings({ allow: ['docs.example.com'] });
    expect(outcome(run, { kind: 'plan', plan: {} })).toBe('require-approval');
    expect(outcome(run, call('sandbox_exec', 'exec', { command: ['ls'] }))).toBe('require-approval');
    expect(outcome(run, call('http_post', 'network', { url: 'https://docs.example.com/' }))).toBe('require-approval');
    expect(outcome(run, call('http_fetch', 'network', { url: 'https://evil.test/' }))).toBe('require-approval');
    expect(outcome(run, call('http_fetch', 'network', { url: 'https://docs.example.com/a' }))).toBe('allow');
    expect(outcome(run, call('fs_write', 'write', { path: 'progress/artifacts/a.md' }))).toBe('allow');
    expect(outcome(run, call('fs_write', 'write', { path: 'task/brief.md' }))).toBe('deny');
    expect(outcome(run, call('test_runner', 'exec'))).toBe('allow');
    expect(operatorWarnings(run)).toEqual([]);
  });

  it('asks approval for test_runner when the operator switched the sandbox off', () => {
    const decision = operatorPolicy(settings({ sandbox: 'none' })).evaluate(call('test_runner', 'exec'));
    expect(decision).toMatchObject({ outcome: 'require-approval', ruleId: 'approval:unsandboxed' });
  });

  it("uses the task's narrower list, and trusts no host offline", () => {
    const narrowed = settings({ allow: ['*.example.com'] }, { allow: ['docs.example.com'] });
    expect(outcome(narrowed, call('http_fetch', 'network', { url: 'https://api.example.com/' }))).toBe(
      'require-approval',
    );
    const offline = settings({ allow: ['docs.example.com'] }, { offline: true });
    expect(outcome(offline, call('http_fetch', 'network', { url: 'https://docs.example.com/' }))).toBe(
      'require-approval',
    );
  });

  it('strict also gates fs_write and every network call; permissive gates nothing and warns', () => {
    const strict = settings({ policy: 'strict', allow: ['docs.example.com'] });
    expect(outcome(strict, call('fs_write', 'write', { path: 'progress/artifacts/a.md' }))).toBe('require-approval');
    expect(outcome(strict, call('http_fetch', 'network', { url: 'https://docs.example.com/' }))).toBe(
      'require-approval',
    );
    const permissive = settings({ policy: 'permissive', sandbox: 'none' });
    expect(outcome(permissive, { kind: 'plan', plan: {} })).toBe('allow');
    expect(outcome(permissive, call('sandbox_exec', 'exec'))).toBe('allow');
    expect(operatorWarnings(permissive)).toEqual([
      expect.stringContaining('--policy permissive'),
      expect.stringContaining('sandbox off'),
    ]);
  });

  it("adds the operator's require_tools to every policy", () => {
    for (const policy of ['default', 'strict', 'permissive'] as const) {
      const decision = operatorPolicy(settings({ policy, requireTools: ['fs_read'] })).evaluate(
        call('fs_read', 'read'),
      );
      expect(decision).toMatchObject({ outcome: 'require-approval', ruleId: 'operator:require-tools' });
    }
  });
});
