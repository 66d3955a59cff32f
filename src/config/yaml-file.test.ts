import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { parseYamlConfig } from './yaml-file.ts';

const FILE = '/srv/agency/agents/agent-01/config.yaml';
const schema = z.looseObject({ port: z.number() });

describe('a YAML config', () => {
  it('that is an alias bomb is refused before it expands, naming the file and how to fix it', () => {
    const bomb = [
      'port: 9000',
      'a: &a [x, x, x, x, x, x, x, x, x, x]',
      'b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]',
      'c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]',
      'd: [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]',
    ].join('\n');
    expect(() => parseYamlConfig(bomb, FILE, schema)).toThrow(
      `${FILE}:1:1: (yaml): Excessive alias count indicates a resource exhaustion attack; use at most 100 alias expansions`,
    );
  });

  it('with a few anchors reused by hand is read', () => {
    const text = 'port: 9000\nbase: &base { a: 1 }\none: *base\ntwo: *base\n';
    expect(parseYamlConfig(text, FILE, schema)).toMatchObject({ port: 9000, one: { a: 1 }, two: { a: 1 } });
  });
});
