import { describe, expect, it } from 'vitest';
import { checkRequest, hostnameOf, originOf } from './request-guard.ts';

const guard = {
  allowedHosts: new Set(['localhost', '127.0.0.1', '[::1]']),
  allowedOrigins: new Set(['http://127.0.0.1:3000']),
};

describe('checkRequest', () => {
  it.each([
    ['127.0.0.1:3000', undefined],
    ['LOCALHOST:3000', undefined],
    ['[::1]:3000', undefined],
    ['127.0.0.1', undefined],
    ['evil.example', 403],
    ['localhost.evil.example:3000', 403],
    ['127.0.0.1.nip.io:3000', 403],
    ['user@127.0.0.1', 403],
    ['', 403],
  ])('Host %j → %s', (host, status) => {
    expect(checkRequest({ host }, guard)?.status).toBe(status);
  });

  it('allows requests without Origin and refuses foreign, null and malformed ones', () => {
    const host = '127.0.0.1:3000';
    expect(checkRequest({ host }, guard)).toBeUndefined();
    expect(checkRequest({ host, origin: 'http://127.0.0.1:3000' }, guard)).toBeUndefined();
    for (const origin of ['http://127.0.0.1:3001', 'https://127.0.0.1:3000', 'null', 'file://', 'garbage']) {
      expect(checkRequest({ host, origin }, guard)?.status, origin).toBe(403);
    }
  });

  it('checks the bearer token after Host and Origin', () => {
    const withToken = { ...guard, token: 'abc' };
    expect(checkRequest({ host: 'localhost' }, withToken)?.status).toBe(401);
    expect(checkRequest({ host: 'localhost', authorization: 'Bearer abd' }, withToken)?.status).toBe(401);
    expect(checkRequest({ host: 'localhost', authorization: 'bearer abc' }, withToken)).toBeUndefined();
    expect(checkRequest({ host: 'evil.example', authorization: 'Bearer abc' }, withToken)?.status).toBe(403);
  });
});

describe('hostnameOf and originOf', () => {
  it('normalise what browsers send', () => {
    expect(hostnameOf('Example.COM:80')).toBe('example.com');
    expect(hostnameOf('a b')).toBeUndefined();
    expect(originOf('http://LOCALHOST:80/')).toBe('http://localhost');
  });
});
