import { describe, expect, it } from 'vitest';
import { memoryWriteFilter } from './content-filter.ts';
import { createPolicy } from './create-policy.ts';
import { policyMemoryCheck } from './memory-check.ts';
import type { PolicyAuditEvent, PolicyRule } from './policy-types.ts';

const org = { kind: 'org', id: 'acme' };
const entry = { kind: 'fact', text: 'The deploy key is in vault.' };

function check(rules: PolicyRule[]) {
  const events: PolicyAuditEvent[] = [];
  const invalid: string[] = [];
  const run = policyMemoryCheck(createPolicy({ rules }), {
    onAudit: (event) => events.push(event),
    onInvalidChange: (message) => invalid.push(message),
    now: () => 0,
  });
  return { run, events, invalid };
}

describe('policyMemoryCheck', () => {
  it('keeps an allowed entry, stores a changed one and refuses a denied one, auditing both', () => {
    const { run, events } = check([
      memoryWriteFilter({ id: 'no-org', patterns: [/./], action: 'block', scopes: ['org:*'] }),
      memoryWriteFilter({ id: 'vault', patterns: [/vault/], action: 'redact' }),
    ]);
    expect(run({ kind: 'user', id: 'u1' }, { kind: 'fact', text: 'fine' })).toEqual({ kind: 'fact', text: 'fine' });
    expect(run({ kind: 'user', id: 'u1' }, entry)).toEqual({
      kind: 'fact',
      text: 'The deploy key is in [REDACTED:vault].',
    });
    expect(run(org, entry)).toBeNull();
    expect(events.map((event) => [event.type, event.ruleId, event.target])).toEqual([
      ['policy.modified', 'vault', 'memory:user:u1'],
      ['policy.blocked', 'no-org', 'memory:org:acme'],
    ]);
  });

  it('refuses a write a rule sends for approval, and a change that is not an entry', () => {
    const approve: PolicyRule = { id: 'ask', check: () => ({ effect: 'require-approval', reason: 'review it' }) };
    const { run, events } = check([approve]);
    expect(run(org, entry)).toBeNull();
    expect(events).toEqual([
      expect.objectContaining({ type: 'policy.blocked', ruleId: 'ask', reason: expect.stringContaining('review it') }),
    ]);
    const broken: PolicyRule = { id: 'broken', check: () => ({ effect: 'modify', patch: 'text', reason: 'oops' }) };
    const second = check([broken]);
    expect(second.run(org, entry)).toBeNull();
    expect(second.invalid).toEqual([expect.stringContaining('broken changed a memory write to org:acme')]);
  });
});
