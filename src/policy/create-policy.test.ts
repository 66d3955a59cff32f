import { describe, expect, it } from 'vitest';
import { createRedactor } from '../core/redact.ts';
import { contentFilter } from './content-filter.ts';
import { createPolicy } from './create-policy.ts';
import type { PolicyAuditEvent, PolicyRequest, PolicyRule } from './policy-types.ts';
import { requireApprovalFor, toolAllowlist, toolDenylist } from './tool-rules.ts';

const call = (name: string, input: unknown = {}, effects: 'read' | 'write' | 'network' | 'exec' = 'read') =>
  ({ kind: 'tool-call', tool: { name, effects }, input }) as const satisfies PolicyRequest;

function fixed(verdict: ReturnType<PolicyRule['check']>, id: string): PolicyRule {
  return { id, check: () => verdict };
}

function audited(rules: PolicyRule[]) {
  const events: PolicyAuditEvent[] = [];
  const policy = createPolicy({
    rules,
    onAudit: (event) => events.push(event),
    now: () => 0,
    redactor: createRedactor(),
  });
  return { policy, events };
}

describe('createPolicy: evaluation order', () => {
  it('allows when no rule has anything to say', () => {
    expect(createPolicy({ rules: [] }).evaluate(call('fs_read'))).toEqual({ outcome: 'allow' });
  });

  it('deny beats require-approval, whatever the rule order', () => {
    const approve = fixed({ effect: 'require-approval', reason: 'needs a human' }, 'approve');
    const deny = fixed({ effect: 'deny', reason: 'never' }, 'deny');
    for (const rules of [
      [approve, deny],
      [deny, approve],
    ]) {
      expect(createPolicy({ rules }).evaluate(call('x'))).toEqual({ outcome: 'deny', reason: 'never', ruleId: 'deny' });
    }
  });

  it('require-approval beats modify and carries the change as its patch', () => {
    const { policy } = audited([
      fixed({ effect: 'modify', patch: { a: 2 }, reason: 'changed a' }, 'change'),
      fixed({ effect: 'require-approval', reason: 'needs a human' }, 'approve'),
    ]);
    expect(policy.evaluate(call('x', { a: 1 }))).toEqual({
      outcome: 'require-approval',
      reason: 'needs a human',
      ruleId: 'approve',
      patch: { a: 2 },
      modifiedBy: ['change'],
    });
  });

  it('once approved, sets require-approval aside: changes apply and are audited, deny still wins', () => {
    const { policy, events } = audited([
      fixed({ effect: 'require-approval', reason: 'needs a human' }, 'approve'),
      fixed({ effect: 'modify', patch: 'changed', reason: 'changed it' }, 'change'),
    ]);
    expect(policy.evaluate(call('x', 'raw')).outcome).toBe('require-approval');
    expect(events).toEqual([]);
    expect(policy.evaluate(call('x', 'raw'), { approved: true })).toMatchObject({
      outcome: 'modify',
      patch: 'changed',
    });
    expect(events.map((event) => event.type)).toEqual(['policy.modified']);
    const denied = createPolicy({
      rules: [fixed({ effect: 'require-approval', reason: 'r' }, 'a'), toolDenylist('x')],
    });
    expect(denied.evaluate(call('x'), { approved: true }).outcome).toBe('deny');
  });

  it('chains changes: each rule sees the payload as changed by the ones before', () => {
    const upper: PolicyRule = {
      id: 'upper',
      check: (r) =>
        r.kind === 'tool-call'
          ? { effect: 'modify', patch: String(r.input).toUpperCase(), reason: 'upper' }
          : undefined,
    };
    const exclaim: PolicyRule = {
      id: 'exclaim',
      check: (r) =>
        r.kind === 'tool-call' ? { effect: 'modify', patch: `${String(r.input)}!`, reason: 'exclaim' } : undefined,
    };
    expect(createPolicy({ rules: [upper, exclaim] }).evaluate(call('x', 'hi'))).toEqual({
      outcome: 'modify',
      patch: 'HI!',
      reason: 'upper; exclaim',
      ruleId: 'upper',
      modifiedBy: ['upper', 'exclaim'],
    });
  });

  it('the first deny wins and later rules are not consulted', () => {
    let consulted = false;
    const later: PolicyRule = { id: 'later', check: () => ((consulted = true), undefined) };
    const policy = createPolicy({ rules: [toolDenylist(['fs_*']), toolAllowlist(['http_fetch']), later] });
    expect(policy.evaluate(call('fs_write'))).toMatchObject({ outcome: 'deny', ruleId: 'tool-denylist' });
    expect(consulted).toBe(false);
    expect(policy.evaluate(call('sandbox_exec'))).toMatchObject({ outcome: 'deny', ruleId: 'tool-allowlist' });
  });

  it('a rule that throws denies (fail closed) without leaking its error', () => {
    const broken: PolicyRule = {
      id: 'broken',
      check: () => {
        throw new Error('sk-proj-SecretInRuleError0123456789');
      },
    };
    const { policy, events } = audited([broken]);
    const decision = policy.evaluate(call('x'));
    expect(decision).toMatchObject({ outcome: 'deny', ruleId: 'broken' });
    expect(JSON.stringify([decision, events])).not.toContain('SecretInRuleError');
  });

  it('rejects rules with duplicate or missing ids', () => {
    expect(() => createPolicy({ rules: [toolDenylist('a'), toolDenylist('b')] })).toThrow(
      /id "tool-denylist" is used twice/,
    );
    expect(() => createPolicy({ rules: [{ id: '', check: () => undefined }] })).toThrow(/rules\[0\] needs an "id"/);
  });
});

describe('createPolicy: audit', () => {
  it('emits policy.blocked for a deny and policy.modified for each change, with target and time', () => {
    const { policy, events } = audited([
      toolDenylist(['sandbox_exec']),
      contentFilter({ id: 'emails', stages: ['tool-input'], patterns: [/\S+@\S+\.\w+/], action: 'redact' }),
    ]);
    policy.evaluate(call('sandbox_exec'));
    policy.evaluate(call('send', { to: 'bob@example.com' }));
    policy.evaluate(call('fs_read'));
    expect(events).toEqual([
      {
        type: 'policy.blocked',
        ruleId: 'tool-denylist',
        kind: 'tool-call',
        target: 'sandbox_exec',
        reason: 'tool "sandbox_exec" is denied by policy',
        at: '1970-01-01T00:00:00.000Z',
      },
      {
        type: 'policy.modified',
        ruleId: 'emails',
        kind: 'tool-call',
        target: 'send',
        reason: 'input of tool "send" redacted by "emails"',
        at: '1970-01-01T00:00:00.000Z',
      },
    ]);
  });

  it('never carries the blocked content or a secret, even from a careless custom rule', () => {
    const secret = 'ghp_AuditCanary0123456789abcdefghijkl';
    const careless: PolicyRule = {
      id: 'careless',
      check: (r) => (r.kind === 'tool-call' ? { effect: 'deny', reason: `saw ${JSON.stringify(r.input)}` } : undefined),
    };
    const filter = contentFilter({ id: 'tokens', stages: ['tool-input'], patterns: [/ghp_\w+/], action: 'block' });
    for (const rule of [filter, careless]) {
      const { policy, events } = audited([rule]);
      const decision = policy.evaluate(call('http_post', { body: `token ${secret}` }));
      expect(decision.outcome).toBe('deny');
      expect(events).toHaveLength(1);
      expect(JSON.stringify([decision, events])).not.toContain(secret);
    }
  });

  it('a per-evaluation sink also receives the events; dryRun emits nothing', () => {
    const { policy, events } = audited([toolDenylist('x')]);
    const extra: PolicyAuditEvent[] = [];
    policy.evaluate(call('x'), { onAudit: (event) => extra.push(event) });
    policy.evaluate(call('x'), { dryRun: true });
    expect(events).toHaveLength(1);
    expect(extra).toEqual(events);
  });

  it('audits nothing for allow and require-approval', () => {
    const { policy, events } = audited([requireApprovalFor(['http_post'])]);
    expect(policy.evaluate(call('http_post')).outcome).toBe('require-approval');
    expect(policy.evaluate(call('fs_read')).outcome).toBe('allow');
    expect(events).toEqual([]);
  });
});

describe('Policy.extend', () => {
  it('adds rules after its own, keeps its audit sink, and leaves the original as it was', () => {
    const { policy, events } = audited([requireApprovalFor(['http_post'])]);
    const extended = policy.extend([toolDenylist('http_post', { id: 'operator-deny' })]);
    expect(extended.rules.map((rule) => rule.id)).toEqual(['require-approval', 'operator-deny']);
    expect(extended.evaluate(call('http_post'))).toMatchObject({ outcome: 'deny', ruleId: 'operator-deny' });
    expect(events).toEqual([
      expect.objectContaining({ type: 'policy.blocked', ruleId: 'operator-deny', at: '1970-01-01T00:00:00.000Z' }),
    ]);
    expect(policy.evaluate(call('http_post')).outcome).toBe('require-approval');
  });

  it('refuses an added rule that reuses an id', () => {
    expect(() => createPolicy({ rules: [toolDenylist('x')] }).extend([toolDenylist('y')])).toThrow(/used twice/);
  });
});
