import { describe, expect, it } from 'vitest';
import { AgencyError } from '../../core/errors.ts';
import type { NetworkPolicy } from './network-policy.ts';
import { checkUrl } from './network-url.ts';

function refusal(url: string, policy?: NetworkPolicy): AgencyError {
  try {
    checkUrl(url, policy);
  } catch (error) {
    if (AgencyError.isInstance(error)) return error;
    throw error;
  }
  throw new Error(`${url} was not refused`);
}

describe('checkUrl', () => {
  it('accepts public http and https URLs and reports the target', () => {
    expect(checkUrl('https://example.com/a?b=1')).toMatchObject({ hostname: 'example.com', port: 443 });
    expect(checkUrl('http://93.184.216.34:8080/')).toMatchObject({ hostname: '93.184.216.34', port: 8080 });
    expect(checkUrl('http://[2606:4700::1]/')).toMatchObject({ hostname: '2606:4700::1', port: 80 });
    expect(checkUrl(new URL('http://example.com/')).url.href).toBe('http://example.com/');
  });

  it.each([
    'file:///etc/passwd',
    'gopher://example.com/',
    'ftp://example.com/',
    'ws://example.com/',
    'data:text/plain,x',
    'not a url',
    '/relative/path',
    'http://',
    'http://[fe80::1%25eth0]/',
  ])('refuses %j as an invalid URL', (url) => {
    expect(refusal(url).code).toBe('network_invalid_url');
  });

  it('refuses credentials without echoing them', () => {
    const error = refusal('http://admin:hunter2@example.com/');
    expect(error.code).toBe('network_invalid_url');
    expect(error.message).toContain('Authorization header');
    expect(error.message).not.toContain('hunter2');
    expect(error.message).not.toContain('admin');
  });

  it('bounds the URL length, and the bound is configurable', () => {
    const long = `https://example.com/?q=${'a'.repeat(5000)}`;
    const error = refusal(long);
    expect(error.code).toBe('network_invalid_url');
    expect(error.message).toContain('over the limit of 4096');
    expect(error.message.length).toBeLessThan(600);
    expect(checkUrl(long, { maxUrlLength: 10_000 }).hostname).toBe('example.com');
  });

  it('refuses blocked literals with the rule and the allowlist entry that would open them', () => {
    const error = refusal('http://0x7f.1:8080/');
    expect(error.code).toBe('network_blocked');
    expect(error.message).toContain('127.0.0.1 is a loopback address [127.0.0.0/8]');
    expect(error.message).toContain('add "127.0.0.1/32" (or "127.0.0.1:8080" for this port only) to policy.allow');
    expect(error.details).toMatchObject({ address: '127.0.0.1', reason: 'loopback' });
    const v6 = refusal('http://[::ffff:7f00:1]/');
    expect(v6.message).toContain('it embeds 127.0.0.1, ipv4-mapped');
    expect(v6.message).toContain('"::ffff:7f00:1/128"');
  });

  it('refuses metadata and loopback hostnames by name', () => {
    expect(refusal('http://metadata.google.internal./').message).toContain('cloud metadata hostname');
    expect(refusal('http://app.localhost/').message).toContain('loopback hostname');
  });

  it('opens literals listed in the allowlist, on their port when one is given', () => {
    expect(checkUrl('http://127.0.0.1:3000/', { allow: ['127.0.0.1/32'] }).literal).toBeDefined();
    expect(checkUrl('http://10.1.2.3/', { allow: ['10.0.0.0/8'] }).hostname).toBe('10.1.2.3');
    expect(checkUrl('http://[::1]:3000/', { allow: ['[::1]:3000'] }).port).toBe(3000);
    expect(refusal('http://[::1]:3001/', { allow: ['[::1]:3000'] }).code).toBe('network_blocked');
    expect(checkUrl('http://localhost:3000/', { allow: ['localhost'] }).hostname).toBe('localhost');
  });

  it('opens metadata only through an exact entry', () => {
    const error = refusal('http://169.254.169.254/', { allow: ['169.254.0.0/16'] });
    expect(error.message).toContain('add the exact address "169.254.169.254"');
    expect(checkUrl('http://169.254.169.254/', { allow: ['169.254.169.254'] }).hostname).toBe('169.254.169.254');
    expect(refusal('http://metadata.google.internal/', { allow: ['*.google.internal'] }).code).toBe('network_blocked');
    expect(checkUrl('http://metadata.google.internal/', { allow: ['metadata.google.internal'] })).toBeDefined();
  });
});
