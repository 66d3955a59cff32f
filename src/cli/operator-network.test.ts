import { describe, expect, it } from 'vitest';
import { parseAllowlist } from '../tools/guards/network-allowlist.ts';
import { isCoveredBy, urlsAllowed } from './operator-network.ts';

const covered = (operator: string[], entry: string) =>
  isCoveredBy(parseAllowlist(operator), parseAllowlist([entry]).entries[0] as never);

describe('isCoveredBy: a task entry inside the operator allowlist', () => {
  it.each([
    [['docs.example.com'], 'docs.example.com', true],
    [['docs.example.com'], 'api.example.com', false],
    [['*.example.com'], 'docs.example.com', true],
    [['*.example.com'], '*.docs.example.com', true],
    [['*.example.com'], '*.example.com', true],
    [['*.example.com'], 'example.com', false],
    [['docs.example.com'], '*.docs.example.com', false],
    [['127.0.0.1:8080'], '127.0.0.1:8080', true],
    [['127.0.0.1:8080'], '127.0.0.1', false],
    [['127.0.0.1'], '127.0.0.1:8080', true],
    [['10.0.0.0/8'], '10.1.2.0/24', true],
    [['10.1.2.0/24'], '10.0.0.0/8', false],
    [['10.0.0.0/8'], '10.1.2.3', true],
    [['10.0.0.0/8'], 'internal.example', false],
    [[], 'docs.example.com', false],
  ])('operator %j, task %s → %s', (operator, entry, expected) => {
    expect(covered(operator, entry)).toBe(expected);
  });
});

describe('urlsAllowed: every URL of a call on the allowlist', () => {
  const allowlist = parseAllowlist(['127.0.0.1:48213', '*.example.com', 'api.github.com']);
  it.each([
    [{ url: 'http://127.0.0.1:48213/survey.html' }, true],
    [{ url: 'http://127.0.0.1:48214/' }, false],
    [{ url: 'https://docs.example.com/a' }, true],
    [{ url: 'https://example.com/a' }, false],
    [{ url: 'https://api.github.com/repos' }, true],
    [{ url: 'ftp://api.github.com/' }, false],
    [{ url: 'not a url' }, false],
    [{ urls: ['https://a.example.com', 'https://api.github.com'] }, true],
    [{ urls: ['https://a.example.com', 'https://evil.test'] }, false],
    [{}, false],
  ])('%j → %s', (input, expected) => {
    expect(urlsAllowed(allowlist, input)).toBe(expected);
  });
});
