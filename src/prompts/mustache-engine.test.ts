import { describe, expect, it } from 'vitest';
import { parseTemplate, renderTokens, variablesOf } from './mustache-engine.ts';

function render(text: string, vars: Record<string, string | number | boolean>): string {
  const parsed = parseTemplate(text);
  if ('error' in parsed) throw new Error(parsed.error.message);
  return renderTokens(parsed.tokens, vars);
}

describe('the mustache engine', () => {
  it('inserts variables and keeps sections by truthiness', () => {
    expect(render('{{ a }}-{{b}}', { a: 1, b: 'two' })).toBe('1-two');
    for (const [value, shown] of [
      [true, 'y'],
      ['x', 'y'],
      [3, 'y'],
      [false, 'n'],
      ['', 'n'],
      [0, 'n'],
    ] as const) {
      expect(render('{{#v}}y{{/v}}{{^v}}n{{/v}}', { v: value })).toBe(shown);
    }
  });

  it('leaves out lines that hold only a section or comment tag', () => {
    expect(render('a\n  {{#s}}  \nb\n{{/s}}\n{{! note }}\nc', { s: true })).toBe('a\nb\nc');
    expect(render('a\n{{#s}}\nb\n{{/s}}\nc', { s: false })).toBe('a\nc');
    expect(render('a {{#s}}b{{/s}}\nc', { s: true })).toBe('a b\nc');
  });

  it('lists the variables a template uses, sections included, once each', () => {
    const parsed = parseTemplate('{{a}} {{#b}}{{a}}{{c}}{{/b}} {{^d}}{{/d}}');
    expect('tokens' in parsed && variablesOf(parsed.tokens)).toEqual(['a', 'b', 'c', 'd']);
  });

  it('names the line and column of a syntax error', () => {
    const cases: Array<[string, RegExp, number, number]> = [
      ['ab\ncd {{x', /never closed/, 2, 4],
      ['{{#a}}{{#b}}{{/a}}{{/b}}', /closes "\{\{#b\}\}"/, 1, 13],
      ['{{}}', /is not a tag/, 1, 1],
      ['{{&x}}', /is not a tag/, 1, 1],
      ['{{{x}}}', /is not a tag/, 1, 1],
      ['{{a {{b}}', /is not a tag|opens inside/, 1, 1],
      ['{{constructor.name}}', /is not a tag/, 1, 1],
    ];
    for (const [text, message, line, column] of cases) {
      const parsed = parseTemplate(text);
      expect('error' in parsed && parsed.error).toMatchObject({
        line,
        column,
        message: expect.stringMatching(message),
      });
    }
  });

  it('refuses sections nested past the depth limit', () => {
    const deep = `${'{{#a}}'.repeat(33)}x${'{{/a}}'.repeat(33)}`;
    const parsed = parseTemplate(deep);
    expect('error' in parsed && parsed.error.message).toMatch(/nest deeper than 32/);
  });

  it('parses a large template with many tags in linear time', () => {
    const text = '{{v}} text '.repeat(20_000);
    const started = performance.now();
    expect(render(text, { v: 'x' })).toHaveLength('x text '.length * 20_000);
    expect(performance.now() - started).toBeLessThan(2_000);
  });
});
