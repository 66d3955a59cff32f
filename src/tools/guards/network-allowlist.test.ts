import { describe, expect, it } from 'vitest';
import { AgencyError } from '../../core/errors.ts';
import { findAddressEntry, findDomainEntry, parseAllowlist } from './network-allowlist.ts';
import { parseIp } from './network-ip.ts';

const ip = (text: string) => parseIp(text)!;

describe('parseAllowlist', () => {
  it('parses domains, suffixes, addresses, CIDRs and ports', () => {
    const { entries } = parseAllowlist([
      'API.Example.com.',
      '*.internal.example',
      '127.0.0.1/32',
      '10.0.0.0/8',
      'fd00::/8',
      '::1',
      '127.0.0.1:8080',
      '[::1]:8443',
      'svc.example:9000',
      'bücher.example',
    ]);
    expect(entries).toEqual([
      { kind: 'domain', text: 'API.Example.com.', domain: 'api.example.com', wildcard: false },
      { kind: 'domain', text: '*.internal.example', domain: 'internal.example', wildcard: true },
      expect.objectContaining({ kind: 'cidr', exact: true }),
      expect.objectContaining({ kind: 'cidr', exact: false }),
      expect.objectContaining({ kind: 'cidr', exact: false }),
      expect.objectContaining({ kind: 'cidr', exact: true }),
      expect.objectContaining({ kind: 'cidr', exact: true, port: 8080 }),
      expect.objectContaining({ kind: 'cidr', exact: true, port: 8443 }),
      expect.objectContaining({ kind: 'domain', domain: 'svc.example', port: 9000 }),
      expect.objectContaining({ kind: 'domain', domain: 'xn--bcher-kva.example' }),
    ]);
  });

  it.each([
    ['', 'not a valid domain'],
    ['10.0.0.1/8', 'host bits are set'],
    ['127.1', 'not an IPv4 or IPv6 address'],
    ['0x7f.0.0.1/32', 'not an IPv4 or IPv6 address'],
    ['127.0.0.1:0', 'port "0"'],
    ['127.0.0.1:99999', 'port "99999"'],
    ['[::1', 'unbalanced brackets'],
    ['[::1]x', 'unbalanced brackets'],
    ['http://example.com', 'not a URL'],
    ['user@example.com', 'not a valid domain'],
    ['*', 'not a valid domain'],
    ['*.*.example.com', 'not a valid domain'],
  ])('refuses %j, naming the entry and the fix', (entry, why) => {
    let error: unknown;
    try {
      parseAllowlist(['example.com', entry]);
    } catch (e) {
      error = e;
    }
    expect(AgencyError.hasCode(error, 'invalid_argument')).toBe(true);
    expect((error as Error).message).toContain(`policy.allow[1] "${entry}"`);
    expect((error as Error).message).toContain(why);
    expect((error as Error).message).toContain('*.example.com');
  });
});

describe('allowlist matching', () => {
  const list = parseAllowlist(['example.com', '*.corp.example', '10.0.0.0/8', '127.0.0.1:8080', '169.254.169.254']);

  it('matches exact domains case-insensitively and suffixes on subdomains only', () => {
    expect(findDomainEntry(list, 'EXAMPLE.com.', 80)).toBeDefined();
    expect(findDomainEntry(list, 'www.example.com', 80)).toBeUndefined();
    expect(findDomainEntry(list, 'a.b.corp.example', 80)).toBeDefined();
    expect(findDomainEntry(list, 'corp.example', 80)).toBeUndefined();
    expect(findDomainEntry(list, 'evilcorp.example', 80)).toBeUndefined();
    expect(findDomainEntry(list, 'a.corp.example', 80, { exactOnly: true })).toBeUndefined();
  });

  it('matches addresses by CIDR and port', () => {
    expect(findAddressEntry(list, ip('10.1.2.3'), 443)).toBeDefined();
    expect(findAddressEntry(list, ip('11.0.0.1'), 443)).toBeUndefined();
    expect(findAddressEntry(list, ip('127.0.0.1'), 8080)).toBeDefined();
    expect(findAddressEntry(list, ip('127.0.0.1'), 8081)).toBeUndefined();
    expect(findAddressEntry(list, ip('::ffff:10.0.0.1'), 80)).toBeUndefined();
  });

  it('counts only single-address entries when exactOnly is set', () => {
    expect(findAddressEntry(list, ip('169.254.169.254'), 80, { exactOnly: true })).toBeDefined();
    expect(findAddressEntry(list, ip('10.0.0.1'), 80, { exactOnly: true })).toBeUndefined();
  });
});
