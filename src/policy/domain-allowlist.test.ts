import { describe, expect, it } from 'vitest';
import type { ToolEffect } from '../core/tool-types.ts';
import { domainAllowlist } from './domain-allowlist.ts';
import type { PolicyRequest } from './policy-types.ts';

const call = (input: unknown, name = 'http_fetch', effects: ToolEffect = 'network'): PolicyRequest => ({
  kind: 'tool-call',
  tool: { name, effects },
  input,
});

describe('domainAllowlist', () => {
  const rule = domainAllowlist({ domains: ['api.github.com', '*.example.com'] });

  it.each([
    ['https://api.github.com/repos', true],
    ['https://API.GitHub.com./repos', true],
    ['http://docs.example.com/x', true],
    ['https://a.b.example.com/x', true],
    ['https://example.com/', false],
    ['https://api.github.com.evil.io/', false],
    ['https://api.github.com@evil.io/', false],
    ['https://evil.io/?u=https://api.github.com', false],
    ['ftp://api.github.com/', false],
    ['file:///etc/passwd', false],
    ['not a url', false],
  ])('%s → allowed %s', (url, allowed) => {
    expect(rule.check(call({ url })) === undefined).toBe(allowed);
  });

  it('checks every URL field, including lists', () => {
    const many = domainAllowlist({ domains: ['a.io'], urlFields: ['url', 'mirrors'] });
    expect(many.check(call({ url: 'https://a.io', mirrors: ['https://a.io/1', 'https://b.io/2'] }))).toMatchObject({
      effect: 'deny',
      reason: 'host "b.io" is not in the domain allowlist for tool "http_fetch"',
    });
  });

  it('checks links_check-style `urls` lists by default', () => {
    const links = call({ urls: ['https://api.github.com/a', 'http://169.254.169.254/latest'] }, 'links_check');
    expect(rule.check(links)).toMatchObject({
      effect: 'deny',
      reason: 'host "169.254.169.254" is not in the domain allowlist for tool "links_check"',
    });
    expect(rule.check(call({ urls: ['https://api.github.com/a'] }, 'links_check'))).toBeUndefined();
  });

  it('applies to network tools by default, or to the named tools', () => {
    expect(rule.check(call({ url: 'https://evil.io' }, 'fs_read', 'read'))).toBeUndefined();
    const named = domainAllowlist({ domains: ['a.io'], tools: ['webhook'] });
    expect(named.check(call({ url: 'https://evil.io' }, 'webhook', 'write'))).toMatchObject({ effect: 'deny' });
    expect(named.check(call({ url: 'https://evil.io' }))).toBeUndefined();
  });

  it('denies a checked tool without a URL argument unless told otherwise', () => {
    expect(rule.check(call({ query: 'cats' }))).toMatchObject({
      effect: 'deny',
      reason: expect.stringContaining('no url/urls argument'),
    });
    const lenient = domainAllowlist({ domains: ['a.io'], onMissingUrl: 'allow' });
    expect(lenient.check(call({ query: 'cats' }))).toBeUndefined();
  });

  it('rejects URLs given as domains', () => {
    expect(() => domainAllowlist({ domains: ['https://a.io/'] })).toThrow(
      /domains\[0\] "https:\/\/a.io\/": write a host/,
    );
  });
});
