import { describe, expect, it } from 'vitest';
import { lenientLinearRegExp, linearRegExp } from './linear-regexp.ts';
import { createSchemaCompiler } from './schema-ajv.ts';

// Patterns of the kind schemas carry, each tried on strings that match and strings that do not: the linear engine
// must answer as JavaScript's RegExp (with the u flag, as ajv uses it) does.
const ORDINARY: Array<[string, string[]]> = [
  ['^[a-z0-9-]+$', ['my-slug', 'Bad Slug', '']],
  ['^\\d{4}-\\d{2}-\\d{2}$', ['2024-01-31', '2024-1-31', '2024-01-31\n']],
  ['^[^@\\s]+@[^@\\s]+\\.[a-z]{2,}$', ['ada@example.org', 'ada@@example.org', 'a da@example.org']],
  ['^(?<major>0|[1-9]\\d*)\\.(0|[1-9]\\d*)\\.(0|[1-9]\\d*)$', ['1.2.3', '01.2.3', '1.2']],
  ['^\\S+$', ['abc', 'a b', 'a\u00a0b', 'a\u2028b']],
  ['\\s', ['\t', '\v', '\u3000', '\ufeff', 'x']],
  ['^.+$', ['abc', 'a\nb', 'a\rb', 'a\u2029b', '😀']],
  ['^\\u00e9t\\u00e9$', ['été', 'ete']],
  ['^\\p{Lu}\\p{Ll}+$', ['Élan', 'élan']],
  ['^[\\s\\d]+$', ['1 2\u00a03', '1a']],
  ['^(foo|bar)baz?$', ['fooba', 'barbaz', 'qux']],
  ['^[^]$', ['\n', 'ab']],
  ['[]', ['', 'a']],
  ['^\\w+$', ['snake_case_1', 'kebab-case']],
  ['colou?r', ['the color', 'the colour', 'the colr']],
  ['^\\/api\\/v\\d+\\/', ['/api/v2/users', '/api/vx/users']],
];

describe('linearRegExp', () => {
  it.each(ORDINARY)('answers as RegExp does for %s', (pattern, inputs) => {
    const linear = linearRegExp(pattern, 'u');
    const native = new RegExp(pattern, 'u');
    for (const input of inputs) expect(linear.test(input), JSON.stringify(input)).toBe(native.test(input));
  });

  it('matches a catastrophic pattern in linear time', () => {
    const pattern = linearRegExp('^(a|a)*$', 'u');
    const started = performance.now();
    expect(pattern.test(`${'a'.repeat(28)}!`)).toBe(false); // RegExp takes seconds; each `a` doubles it
    expect(pattern.test(`${'a'.repeat(100_000)}!`)).toBe(false);
    expect(linearRegExp('^(x+x+)+y$', 'u').test('x'.repeat(50_000))).toBe(false);
    expect(performance.now() - started).toBeLessThan(1000);
  });

  it('gives each pattern its own cache key, as ajv caches them by toString()', () => {
    const compile = createSchemaCompiler();
    expect(compile({ type: 'string', pattern: '^a+$' })('b')).toBe(false);
    const keys = compile({ type: 'object', patternProperties: { '^x+y$': { type: 'number' } } });
    expect(keys({ xxy: 'one' })).toBe(false);
    expect(keys({ xx: 'two' })).toBe(true);
  });

  it('refuses lookaround and backreferences, naming the pattern; the lenient engine lets them through', () => {
    for (const pattern of ['^(?=.*\\d).{8,}$', '(?<!x)y', '(a)\\1']) {
      expect(() => linearRegExp(pattern, 'u')).toThrow(`pattern ${JSON.stringify(pattern)} cannot run`);
      expect(lenientLinearRegExp(pattern, 'u').test('anything')).toBe(true);
    }
  });
});
