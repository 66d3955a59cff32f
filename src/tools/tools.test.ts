import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool } from './define-tool.ts';
import { runToolCall } from './run-tool-call.ts';
import { createToolRegistry } from './tool-registry.ts';

const add = defineTool({
  name: 'add',
  description: 'Adds two numbers',
  input: z.object({ a: z.number().describe('first addend'), b: z.number(), note: z.string().optional() }),
  effects: 'read',
  execute: ({ a, b }) => a + b,
});
const search = defineTool({
  name: 'search',
  description: 'Searches the notes',
  input: z.object({ query: z.string().min(1), filters: z.object({ tag: z.string() }).optional() }),
  effects: 'network',
  execute: ({ query }) => ({ hits: [query], at: new Date(0) }),
});
const call = (toolName: string, input: unknown, inputError?: string) => ({
  toolCallId: 'call_1',
  toolName,
  input,
  ...(inputError ? { inputError } : {}),
});

describe('defineTool', () => {
  it('produces the JSON Schema the model sees, closed to extra keys', () => {
    expect(add.inputSchema).toEqual({
      type: 'object',
      properties: {
        a: { type: 'number', description: 'first addend' },
        b: { type: 'number' },
        note: { type: 'string' },
      },
      required: ['a', 'b'],
      additionalProperties: false,
    });
    const filters = search.inputSchema.properties?.filters as { additionalProperties?: boolean } | undefined;
    expect(filters?.additionalProperties).toBe(false);
  });

  it('defaults idempotency from effects and the timeout to 30 s', () => {
    expect([add.idempotent, search.idempotent, add.timeoutMs]).toEqual([true, false, 30_000]);
  });

  it.each([
    [{ name: 'has space' }, /"name" must be 1-64 letters/],
    [{ name: 'x'.repeat(65) }, /"name"/],
    [{ description: ' ' }, /"description" must be a non-empty string/],
    [{ input: z.string() }, /"input" must be an object schema/],
    [{ input: { a: 1 } }, /"input" must be a zod schema/],
    [{ effects: 'delete' }, /"effects" must be one of read, write, network, exec/],
    [{ timeoutMs: 0 }, /"timeoutMs" must be a positive number/],
  ])('rejects a malformed definition %j', (override, message) => {
    const base = { name: 'ok', description: 'd', input: z.object({}), effects: 'read', execute: () => 1 };
    expect(() => defineTool({ ...base, ...override } as never)).toThrow(
      expect.objectContaining({ code: 'tool_definition_invalid', message: expect.stringMatching(message) }),
    );
  });
});

describe('runToolCall', () => {
  it('runs a valid call', async () => {
    const outcome = await runToolCall(add, call('add', { a: 2, b: 3 }));
    expect(outcome).toMatchObject({ ok: true, output: 5, modelOutput: { type: 'json', value: 5 } });
    expect(outcome.durationMs).toBeGreaterThanOrEqual(0);
  });

  it('sends JSON-safe output to the model', async () => {
    const outcome = await runToolCall(search, call('search', { query: 'x' }));
    expect(outcome.modelOutput).toEqual({ type: 'json', value: { hits: ['x'], at: '1970-01-01T00:00:00.000Z' } });
  });

  it('turns arguments that fail the schema into an error result naming each field', async () => {
    const outcome = await runToolCall(add, call('add', { a: 'two', c: 1 }));
    expect(outcome.ok).toBe(false);
    expect(outcome.error?.code).toBe('tool_invalid_input');
    expect(outcome.modelOutput.type).toBe('error-text');
    const message = outcome.error?.message ?? '';
    expect(message).toMatch(/Invalid arguments for tool "add"/);
    expect(message).toMatch(/- a: Invalid input: expected number, received string/);
    expect(message).toMatch(/- b: Invalid input: expected number, received undefined/);
    expect(message).toMatch(/call "add" again/);
  });

  it('rejects arguments that were not valid JSON', async () => {
    const outcome = await runToolCall(add, call('add', '{"a":', 'Unexpected end of JSON input'));
    expect(outcome.error).toEqual({
      code: 'tool_invalid_input',
      message: expect.stringMatching(/not valid JSON \(Unexpected end/),
    });
  });

  it('reports an unknown tool with the available names', async () => {
    const outcome = await createToolRegistry([search, add]).run(call('serch', {}));
    expect(outcome.error).toEqual({
      code: 'tool_not_found',
      message: 'Unknown tool "serch". Available tools: add, search. Call one of these by its exact name.',
    });
  });

  it('turns a throwing tool into an error result', async () => {
    const broken = defineTool({
      name: 'broken',
      description: 'd',
      input: z.object({}),
      effects: 'exec',
      execute: () => {
        throw new Error('disk on fire');
      },
    });
    const asyncBroken = defineTool({
      name: 'async_broken',
      description: 'd',
      input: z.object({}),
      effects: 'exec',
      execute: async () => {
        throw new Error('later');
      },
    });
    expect((await runToolCall(broken, call('broken', {}))).error).toEqual({
      code: 'tool_failed',
      message: 'Tool "broken" failed: disk on fire',
    });
    expect((await runToolCall(asyncBroken, call('async_broken', {}))).error?.message).toBe(
      'Tool "async_broken" failed: later',
    );
  });

  it('cancels a tool that hangs past its timeout and aborts its signal', async () => {
    let sawAbort = false;
    const hang = defineTool({
      name: 'hang',
      description: 'never returns',
      input: z.object({}),
      effects: 'read',
      timeoutMs: 50,
      execute: (_input, { signal }) =>
        new Promise(() => {
          signal.addEventListener('abort', () => {
            sawAbort = true;
          });
        }),
    });
    const started = Date.now();
    const outcome = await runToolCall(hang, call('hang', {}));
    expect(outcome.error).toEqual({ code: 'tool_timeout', message: expect.stringMatching(/timed out after 50 ms/) });
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(sawAbort).toBe(true);
  });

  it('resolves at once with an error result when the run is cancelled', async () => {
    const slow = defineTool({
      name: 'slow',
      description: 'd',
      input: z.object({}),
      effects: 'read',
      execute: () => new Promise(() => {}),
    });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 10);
    const outcome = await runToolCall(slow, call('slow', {}), { signal: controller.signal });
    expect(outcome.error?.code).toBe('aborted');
  });

  it('reports output that cannot be serialized', async () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    const weird = defineTool({
      name: 'weird',
      description: 'd',
      input: z.object({}),
      effects: 'read',
      execute: () => cyclic,
    });
    expect((await runToolCall(weird, call('weird', {}))).error?.message).toMatch(/cannot be sent to the model/);
  });

  it('passes the task and call id to the tool', async () => {
    const whoami = defineTool({
      name: 'whoami',
      description: 'd',
      input: z.object({}),
      effects: 'read',
      execute: (_input, context) => `${context.toolCallId}:${context.task?.context?.userId}`,
    });
    const outcome = await runToolCall(whoami, call('whoami', {}), { task: { input: 'x', context: { userId: 'u1' } } });
    expect(outcome.output).toBe('call_1:u1');
  });
});

describe('createToolRegistry', () => {
  it('orders tools by name whatever the input order, and serializes definitions byte-identically', () => {
    const one = createToolRegistry([search, add]);
    const two = createToolRegistry([add, search]);
    expect(one.names()).toEqual(['add', 'search']);
    expect(JSON.stringify(one.definitions())).toBe(JSON.stringify(two.definitions()));
    expect(one.definitions()).toBe(one.definitions());
    expect(JSON.stringify(one.definitions())).toBe(JSON.stringify(one.definitions()));
    expect(one.definitions()[0]).toEqual({
      type: 'function',
      name: 'add',
      description: 'Adds two numbers',
      inputSchema: add.inputSchema,
    });
  });

  it('rejects duplicate names', () => {
    expect(() => createToolRegistry([add, add])).toThrow(expect.objectContaining({ code: 'tool_definition_invalid' }));
  });
});
