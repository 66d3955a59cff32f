import { describe, expect, it } from 'vitest';
import { printableUrl } from './printable-url.ts';

describe('printableUrl', () => {
  it('hides the user and password of a URL and secret query parameters', () => {
    expect(printableUrl('redis://admin:s3cret@cache:6379/0')).toBe('redis://***@cache:6379/0');
    expect(printableUrl('postgres://agency@db/x?sslmode=require&password=p')).toBe(
      'postgres://***@db/x?sslmode=require&password=***',
    );
    expect(printableUrl('https://example.com/a?token=abc&x=1')).toBe('https://example.com/a?token=***&x=1');
  });

  it('hides credentials in text that does not parse as a URL, and cuts long text', () => {
    expect(printableUrl('redis://us er:pa ss@[bad')).toBe('redis://***@[bad');
    expect(printableUrl(`http://h/${'a'.repeat(300)}`)).toHaveLength(200);
    expect(printableUrl(42)).toBe('42');
  });
});
