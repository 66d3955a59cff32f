import { describe, expect, it } from 'vitest';
import type { Tool } from '../tools/define-tool.ts';
import { runToolCall } from '../tools/run-tool-call.ts';
import { createJsonSchemaCompiler } from './json-schema-input.ts';

const issuesOf = (schema: Record<string, unknown>, value: unknown) =>
  createJsonSchemaCompiler()
    .compile(schema)
    .safeParse(value)
    .error?.issues.map((issue) => [issue.path.join('.'), issue.message]);

const person = {
  type: 'object',
  properties: {
    name: { type: 'string' },
    tags: { type: 'array', items: { type: 'string' } },
    address: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    kind: { enum: ['a', 'b'] },
  },
  required: ['name'],
  additionalProperties: false,
};

describe('createJsonSchemaCompiler', () => {
  it('passes valid arguments through unchanged, without applying defaults', () => {
    const schema = { type: 'object', properties: { n: { type: 'number', default: 3 } } };
    const parsed = createJsonSchemaCompiler().compile(schema).safeParse({});
    expect(parsed).toEqual({ success: true, data: {} });
  });

  it('reports every failing field with its path', () => {
    expect(issuesOf(person, { tags: ['x', 1], address: {}, extra: true, kind: 'c' })).toEqual([
      ['name', 'is required'],
      ['extra', 'is not allowed'],
      ['tags.1', 'must be string'],
      ['address.city', 'is required'],
      ['kind', 'must be one of "a", "b"'],
    ]);
    expect(issuesOf(person, 'not an object')).toEqual([['', 'must be object']]);
  });

  it("becomes agency's usual tool_invalid_input result, naming the fields", async () => {
    const tool: Tool = {
      name: 'person',
      description: 'd',
      input: createJsonSchemaCompiler().compile(person),
      inputSchema: person as never,
      effects: 'read',
      idempotent: true,
      timeoutMs: 1000,
      execute: () => 'ran',
    };
    const outcome = await runToolCall(tool, { toolCallId: 'c', toolName: 'person', input: { name: 1 } });
    expect(outcome.error?.code).toBe('tool_invalid_input');
    expect(outcome.error?.message).toContain('- name: must be string');
    const ok = await runToolCall(tool, { toolCallId: 'c', toolName: 'person', input: { name: 'Ada' } });
    expect(ok).toMatchObject({ ok: true, output: 'ran' });
  });

  it('reads 2020-12 keywords, and falls back to draft-07 for older shapes without $schema', () => {
    const tuple2020 = {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      properties: { pair: { type: 'array', prefixItems: [{ type: 'string' }, { type: 'number' }] } },
    };
    expect(issuesOf(tuple2020, { pair: ['a', 'b'] })).toEqual([['pair.1', 'must be number']]);
    const tuple07 = { type: 'object', properties: { pair: { type: 'array', items: [{ type: 'string' }] } } };
    expect(issuesOf(tuple07, { pair: [1] })).toEqual([['pair.0', 'must be string']]);
  });

  it('resolves local $defs and tolerates the same $id compiled twice', () => {
    const schema = {
      $id: 'urn:example:args',
      type: 'object',
      properties: { n: { $ref: '#/$defs/int' } },
      $defs: { int: { type: 'integer' } },
    };
    const compiler = createJsonSchemaCompiler();
    compiler.compile(schema);
    expect(compiler.compile(structuredClone(schema)).safeParse({ n: 1.5 }).success).toBe(false);
  });

  it('ignores unknown formats and keywords instead of refusing the schema', () => {
    const schema = { type: 'object', properties: { u: { type: 'string', format: 'uri', 'x-vendor': 1 } } };
    expect(issuesOf(schema, { u: 'not a uri' })).toBeUndefined();
  });

  it("matches a server's pattern in linear time, and leaves one that needs backtracking to the server", () => {
    const started = performance.now();
    const slow = { type: 'object', properties: { id: { type: 'string', pattern: '^(a|a)*$' } } };
    expect(issuesOf(slow, { id: `${'a'.repeat(28)}!` })).toEqual([['id', 'must match pattern "^(a|a)*$"']]);
    expect(performance.now() - started).toBeLessThan(1000);
    const lookahead = { type: 'object', properties: { pw: { type: 'string', pattern: '^(?=.*\\d).{8,}$' } } };
    expect(issuesOf(lookahead, { pw: 'short' })).toBe(undefined);
  });

  it('throws for a schema that cannot compile', () => {
    expect(() => createJsonSchemaCompiler().compile({ type: 'object', properties: { a: { $ref: '#/nope' } } })).toThrow(
      /does not compile/,
    );
  });
});
