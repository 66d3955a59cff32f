import { describe, expect, it } from 'vitest';
import { createPolicy } from './create-policy.ts';
import type { PolicyRequest } from './policy-types.ts';
import { rateLimit } from './rate-limit.ts';
import { toolDenylist } from './tool-rules.ts';

const call = (name: string, input: unknown = {}): PolicyRequest => ({
  kind: 'tool-call',
  tool: { name, effects: 'network' },
  input,
});

describe('rateLimit', () => {
  it('allows a burst, then refills at limit per interval on the injected clock', () => {
    let t = 0;
    const policy = createPolicy({
      rules: [rateLimit({ tools: 'http_fetch', limit: 2, intervalMs: 1000, now: () => t })],
    });
    const outcomes = () => policy.evaluate(call('http_fetch')).outcome;
    expect([outcomes(), outcomes(), outcomes()]).toEqual(['allow', 'allow', 'deny']);
    t = 499;
    expect(outcomes()).toBe('deny');
    t = 500;
    expect(outcomes()).toBe('allow');
    expect(outcomes()).toBe('deny');
    t = 10_000;
    expect([outcomes(), outcomes(), outcomes()]).toEqual(['allow', 'allow', 'deny']);
  });

  it('says when to retry', () => {
    const policy = createPolicy({ rules: [rateLimit({ tools: 'x', limit: 1, intervalMs: 60_000, now: () => 0 })] });
    policy.evaluate(call('x'));
    expect(policy.evaluate(call('x'))).toEqual({
      outcome: 'deny',
      ruleId: 'rate-limit',
      reason: 'rate limit for tool "x" (1 per 60000 ms) reached; retry in 60000 ms',
    });
  });

  it('keeps one bucket per tool, and honours burst', () => {
    const policy = createPolicy({
      rules: [rateLimit({ tools: 'http_*', limit: 1, intervalMs: 1000, burst: 2, now: () => 0 })],
    });
    const run = (name: string) => policy.evaluate(call(name)).outcome;
    expect([run('http_get'), run('http_get'), run('http_get'), run('http_post'), run('fs_read')]).toEqual([
      'allow',
      'allow',
      'deny',
      'allow',
      'allow',
    ]);
  });

  it('takes no token for a call another rule denies, nor in a dry run', () => {
    const policy = createPolicy({
      rules: [rateLimit({ tools: '*', limit: 1, intervalMs: 1000, now: () => 0 }), toolDenylist('blocked')],
    });
    expect(policy.evaluate(call('blocked')).outcome).toBe('deny');
    expect(policy.evaluate(call('blocked'), { dryRun: true }).outcome).toBe('deny');
    expect(policy.evaluate(call('ok'), { dryRun: true }).outcome).toBe('allow');
    expect(policy.evaluate(call('ok')).outcome).toBe('allow');
    expect(policy.evaluate(call('ok')).outcome).toBe('deny');
  });

  it('rejects a non-positive limit', () => {
    expect(() => rateLimit({ tools: 'x', limit: 0, intervalMs: 1000 })).toThrow(/"limit" must be a positive number/);
  });
});
