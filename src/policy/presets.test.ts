import { describe, expect, it } from 'vitest';
import type { ToolEffect } from '../core/tool-types.ts';
import type { PolicyRequest } from './policy-types.ts';
import { permissivePolicy, strictPolicy } from './presets.ts';

const call = (name: string, effects: ToolEffect, input: unknown = {}): PolicyRequest => ({
  kind: 'tool-call',
  tool: { name, effects },
  input,
});

const PLAN: PolicyRequest = { kind: 'plan', plan: {} };

describe('strictPolicy', () => {
  const policy = strictPolicy({ domains: ['api.github.com'] });

  it.each([
    ['a plan', PLAN, 'require-approval', 'plan-approval'],
    ['sandbox_exec', call('sandbox_exec', 'exec', { cmd: 'ls' }), 'require-approval', 'approval:named-tools'],
    [
      'http_post to an allowed host',
      call('http_post', 'network', { url: 'https://api.github.com/x' }),
      'require-approval',
      'approval:named-tools',
    ],
    [
      'fs_write in progress/',
      call('fs_write', 'write', { path: 'progress/notes.md' }),
      'require-approval',
      'approval:named-tools',
    ],
    ['another exec tool', call('make', 'exec'), 'require-approval', 'approval:effects'],
    [
      'http_fetch to an allowed host',
      call('http_fetch', 'network', { url: 'https://api.github.com/' }),
      'require-approval',
      'approval:effects',
    ],
    ['http_fetch elsewhere', call('http_fetch', 'network', { url: 'https://evil.io/' }), 'deny', 'domain-allowlist'],
    ['fs_write outside progress/', call('fs_write', 'write', { path: 'task/brief.md' }), 'deny', 'write-scope'],
  ])('%s → %s', (_name, request, outcome, ruleId) => {
    expect(policy.evaluate(request)).toMatchObject({ outcome, ruleId });
  });

  it('lets the store tools write to their store, and nothing else write without a path', () => {
    expect(policy.evaluate(call('kv', 'write', { op: 'set', key: 'k', value: 1 }))).toEqual({ outcome: 'allow' });
    expect(policy.evaluate(call('sql', 'write', { query: 'delete from t', params: [] }))).toEqual({ outcome: 'allow' });
    expect(policy.evaluate(call('notes_append', 'write', { text: 'x' }))).toMatchObject({
      outcome: 'deny',
      ruleId: 'write-scope',
    });
    const noStores = strictPolicy({ storeTools: [] });
    expect(noStores.evaluate(call('kv', 'write', { op: 'set', key: 'k', value: 1 }))).toMatchObject({
      outcome: 'deny',
      ruleId: 'write-scope',
    });
  });

  it('lets read tools run freely', () => {
    expect(policy.evaluate(call('fs_read', 'read', { path: 'task/brief.md' }))).toEqual({ outcome: 'allow' });
  });
});

describe('permissivePolicy', () => {
  it('allows everything and audits nothing', () => {
    const events: unknown[] = [];
    const policy = permissivePolicy({ onAudit: (event) => events.push(event) });
    for (const request of [call('sandbox_exec', 'exec'), call('fs_write', 'write', { path: '/etc/x' }), PLAN])
      expect(policy.evaluate(request)).toEqual({ outcome: 'allow' });
    expect(events).toEqual([]);
  });
});
