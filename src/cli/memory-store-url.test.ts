import { describe, expect, it } from 'vitest';
import { parseMemoryStoreUrl } from './memory-store-url.ts';

describe('parseMemoryStoreUrl for Zep', () => {
  const parse = (text: string) => parseMemoryStoreUrl(text, '--memory', '/base');

  it('takes zep:// as HTTPS, zep+http:// as HTTP, /api/v2 when no path, and ?prefix= as the graph prefix', () => {
    expect(parse('zep://api.getzep.com')).toEqual({ kind: 'zep', baseUrl: 'https://api.getzep.com/api/v2' });
    expect(parse('zep+http://127.0.0.1:8000/api/v2/?prefix=team1')).toEqual({
      kind: 'zep',
      baseUrl: 'http://127.0.0.1:8000/api/v2',
      graphPrefix: 'team1',
    });
  });

  it('refuses a key or password in the URL without echoing it, and a bad prefix', () => {
    expect(() => parse('zep://key:zsecret99@api.getzep.com')).toThrow(
      '--memory: "zep://***@api.getzep.com" holds credentials; a Zep URL names only the host, and the API key goes in ZEP_API_KEY',
    );
    expect(() => parse('zep://api.getzep.com?prefix=Bad-One')).toThrow(/"prefix" that is not 1 to 40 a-z or 0-9/);
    expect(() => parse('zep:nothing')).toThrow(/is not a memory store this agency knows; use .* or zep:\/\/<host>/);
  });
});
