import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createToolRegistry } from '../tool-registry.ts';
import { createJsonValidateTool, type JsonValidateToolOptions } from './json-validate.ts';

let base: string;
let progress: string;

beforeEach(() => {
  base = realpathSync(mkdtempSync(join(tmpdir(), 'agency-json-')));
  progress = join(base, 'progress');
  mkdirSync(join(progress, 'artifacts'), { recursive: true });
  writeFileSync(join(base, 'secret.json'), '{"canary": "CANARY-SECRET"}');
  symlinkSync(join(base, 'secret.json'), join(progress, 'link.json'));
});
afterEach(() => {
  shared = undefined;
  rmSync(base, { recursive: true, force: true });
});

const person = {
  type: 'object',
  properties: {
    name: { type: 'string' },
    age: { type: 'integer', minimum: 0 },
    tags: { type: 'array', items: { type: 'string' } },
  },
  required: ['name'],
  additionalProperties: false,
};

let shared: ReturnType<typeof createToolRegistry> | undefined;

// One tool per test where the options are the defaults: the first call of a tool builds its ajv.
function validate(input: unknown, options?: Omit<JsonValidateToolOptions, 'roots'>, withRoots = true) {
  const build = () =>
    createToolRegistry([
      createJsonValidateTool({ ...options, ...(withRoots ? { roots: [{ label: 'progress', path: progress }] } : {}) }),
    ]);
  const registry = options === undefined && withRoots ? (shared ??= build()) : build();
  return registry.run({ toolCallId: 'c1', toolName: 'json_validate', input });
}

describe('json_validate', () => {
  it('accepts a matching value', async () => {
    const outcome = await validate({ value: { name: 'Ada', age: 36 }, schema: person });
    expect(outcome.output).toEqual({ valid: true, errors: [], truncated: false });
  });

  it('lists every error with a JSON Pointer into the value', async () => {
    const outcome = await validate({ value: { age: -1, tags: ['a', 2], extra: true }, schema: person });
    expect(outcome.output).toEqual({
      valid: false,
      errors: expect.arrayContaining([
        { path: '/name', message: 'is required' },
        { path: '/extra', message: 'is not allowed by the schema (additionalProperties)' },
        { path: '/age', message: 'must be >= 0' },
        { path: '/tags/1', message: 'must be string' },
      ]),
      truncated: false,
    });
    const root = await validate({ value: 'x', schema: person });
    expect(root.output).toMatchObject({ errors: [{ path: '/', message: 'must be object' }] });
  });

  it('validates a file inside the read roots against a schema file', async () => {
    writeFileSync(join(progress, 'artifacts', 'out.json'), '{"name": 7}');
    writeFileSync(join(progress, 'person.schema.json'), JSON.stringify(person));
    const outcome = await validate({ path: 'progress/artifacts/out.json', schema_path: 'progress/person.schema.json' });
    expect(outcome.output).toMatchObject({ valid: false, errors: [{ path: '/name', message: 'must be string' }] });
    writeFileSync(join(progress, 'broken.json'), '{"name": ');
    const broken = await validate({ path: 'progress/broken.json', schema: person });
    expect(broken.error?.message).toMatch(/"progress\/broken.json" is not valid JSON/);
  });

  it('refuses files outside the roots, and files at all without roots', async () => {
    for (const path of ['../secret.json', 'progress/link.json', '/etc/passwd']) {
      const outcome = await validate({ path, schema: { type: 'object' } });
      expect(outcome.ok).toBe(false);
      expect(JSON.stringify(outcome)).not.toContain('CANARY-SECRET');
    }
    const rootless = await validate({ path: 'progress/x.json', schema: {} }, {}, false);
    expect(rootless.error?.message).toMatch(/needs read roots/);
  });

  it.each([
    [{ type: 'strin' }, /schema is invalid/],
    [{ type: 'object', properties: { a: { minimum: 'zero' } } }, /schema is invalid/],
    [{ $ref: '#/definitions/missing' }, /schema is invalid/],
    [{ $ref: 'https://example.com/remote.json' }, /schema is invalid/],
  ])('fails a bad schema with schema_invalid: %j', async (schema, message) => {
    const outcome = await validate({ value: {}, schema });
    expect(outcome.error?.code).toBe('schema_invalid');
    expect(outcome.error?.message).toMatch(message);
  });

  it('matches a model-supplied pattern in linear time, so the tool cannot stall the process', async () => {
    let worstGap = 0;
    let last = performance.now();
    const timer = setInterval(() => {
      worstGap = Math.max(worstGap, performance.now() - last);
      last = performance.now();
    }, 5);
    try {
      const schema = { type: 'string', pattern: '^(a|a)*$' };
      const started = performance.now();
      const redos = await validate({ value: `${'a'.repeat(28)}!`, schema });
      expect(redos.output).toMatchObject({
        valid: false,
        errors: [{ path: '/', message: 'must match pattern "^(a|a)*$"' }],
      });
      expect((await validate({ value: 'a'.repeat(28), schema })).output).toMatchObject({ valid: true });
      const keys = { type: 'object', patternProperties: { '^(x+x+)+y$': { type: 'number' } } };
      const property = await validate({
        value: { [`${'x'.repeat(26)}y`]: 'one', ['x'.repeat(26)]: 'two' },
        schema: keys,
      });
      expect(property.output).toMatchObject({ valid: false, errors: [{ message: 'must be number' }] });
      expect(performance.now() - started).toBeLessThan(1000);
    } finally {
      clearInterval(timer);
    }
    expect(worstGap).toBeLessThan(500);
  });

  it('refuses a pattern that needs backtracking with schema_invalid', async () => {
    const outcome = await validate({ value: 'abc', schema: { type: 'string', pattern: '^(?=.*\\d).+$' } });
    expect(outcome.error?.code).toBe('schema_invalid');
    expect(outcome.error?.message).toMatch(/lookahead, lookbehind and backreferences are not supported/);
  });

  it('needs exactly one value source and one schema source', async () => {
    expect((await validate({ schema: {} })).error?.code).toBe('tool_invalid_input');
    expect((await validate({ value: 1, path: 'x.json', schema: {} })).error?.code).toBe('tool_invalid_input');
    expect((await validate({ value: 1 })).error?.code).toBe('tool_invalid_input');
  });

  it('supports 2020-12 schemas and caps the error list', async () => {
    const schema = {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      prefixItems: [{ type: 'string' }],
      items: { type: 'number' },
    };
    expect((await validate({ value: ['a', 1, 2], schema })).output).toMatchObject({ valid: true });
    const many = await validate({ value: ['a', 'b', 'c', 'd'], schema }, { maxErrors: 2 });
    expect(many.output).toMatchObject({ valid: false, truncated: true });
    expect((many.output as { errors: unknown[] }).errors).toHaveLength(2);
  });
});
