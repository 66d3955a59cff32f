import { describe, expect, it } from 'vitest';
import { checkRequest, hostnameOf, originOf } from './request-guard.ts';

const guard = {
  allowedHosts: new Set(['localhost', '127.0.0.1', '[::1]']),
  allowedOrigins: new Set(['http://127.0.0.1:3000']),
};

describe('checkRequest', () => {
  it.each([
    ['127.0.0.1:3000', 'ok'],
    ['LOCALHOST:3000', 'ok'],
    ['[::1]:3000', 'ok'],
    ['127.0.0.1', 'ok'],
    ['evil.example', 403],
    ['localhost.evil.example:3000', 403],
    ['127.0.0.1.nip.io:3000', 403],
    ['user@127.0.0.1', 403],
    ['', 403],
  ])('Host %j → %s', (host, status) => {
    const checked = checkRequest({ host }, guard);
    expect(checked.ok ? 'ok' : checked.status).toBe(status);
  });

  it('allows requests without Origin and refuses foreign, null and malformed ones', () => {
    const host = '127.0.0.1:3000';
    expect(checkRequest({ host }, guard)).toEqual({ ok: true, principal: undefined });
    expect(checkRequest({ host, origin: 'http://127.0.0.1:3000' }, guard).ok).toBe(true);
    for (const origin of ['http://127.0.0.1:3001', 'https://127.0.0.1:3000', 'null', 'file://', 'garbage']) {
      expect(checkRequest({ host, origin }, guard), origin).toMatchObject({ ok: false, status: 403 });
    }
  });

  it('checks the bearer token after Host and Origin, and names its holder', () => {
    const withTokens = {
      ...guard,
      tokens: [
        { name: 'ana', token: 'abc' },
        { name: 'bo', token: 'xyz' },
      ],
    };
    const check = (headers: { host: string; authorization?: string }) => checkRequest(headers, withTokens);
    expect(check({ host: 'localhost' })).toMatchObject({ ok: false, status: 401 });
    for (const authorization of ['Bearer abd', 'Bearer ab', 'Bearer abcd', 'Basic abc', 'Bearer', 'abc'])
      expect(check({ host: 'localhost', authorization }), authorization).toMatchObject({ ok: false, status: 401 });
    expect(check({ host: 'localhost', authorization: 'bearer abc' })).toEqual({ ok: true, principal: 'ana' });
    expect(check({ host: 'localhost', authorization: 'Bearer xyz' })).toEqual({ ok: true, principal: 'bo' });
    expect(check({ host: 'evil.example', authorization: 'Bearer abc' })).toMatchObject({ ok: false, status: 403 });
  });
});

describe('hostnameOf and originOf', () => {
  it('normalise what browsers send', () => {
    expect(hostnameOf('Example.COM:80')).toBe('example.com');
    expect(hostnameOf('a b')).toBeUndefined();
    expect(originOf('http://LOCALHOST:80/')).toBe('http://localhost');
  });
});
