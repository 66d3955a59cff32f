import type { Tool as McpToolDescriptor } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { createJsonSchemaCompiler } from './json-schema-input.ts';
import { createToolCatalog, type McpToolOverride } from './tool-catalog.ts';

const object = { type: 'object' as const, properties: { q: { type: 'string' } } };
const descriptor = (name: string, extra: Partial<McpToolDescriptor> = {}): McpToolDescriptor => ({
  name,
  description: `Tool ${name}`,
  inputSchema: object,
  ...extra,
});

function catalog(overrides: Record<string, McpToolOverride> = {}) {
  return createToolCatalog({
    server: 'srv',
    effects: 'exec',
    timeoutMs: 1000,
    overrides,
    compiler: createJsonSchemaCompiler(),
    call: () => Promise.resolve({ content: [] }),
  });
}

describe('createToolCatalog', () => {
  it('skips what it cannot expose, saying why', () => {
    const tools = catalog({ hidden: { enabled: false } });
    tools.update([
      descriptor('ok'),
      descriptor('ok'),
      descriptor('hidden'),
      descriptor('task', { execution: { taskSupport: 'required' } }),
      descriptor('broken', { inputSchema: { type: 'object', properties: { a: { $ref: '#/missing' } } } }),
      { name: 'flat', inputSchema: { type: 'string' } as never },
    ]);
    expect(tools.tools().map((tool) => tool.name)).toEqual(['srv__ok']);
    expect(tools.skipped()).toEqual([
      { name: 'ok', reason: 'the server lists it twice' },
      { name: 'hidden', reason: 'disabled in the connection options' },
      { name: 'task', reason: 'it only runs as an MCP task, which this client does not support' },
      { name: 'flat', reason: 'its input schema is not an object schema' },
      { name: 'broken', reason: expect.stringContaining('its input schema does not compile') },
    ]);
  });

  it('keeps unchanged tools and reports whether the list changed', () => {
    const tools = catalog({ read: { effects: 'read', timeoutMs: 5 } });
    expect(tools.update([descriptor('read'), descriptor('b')]).changed).toBe(true);
    const [first] = tools.tools();
    expect(first).toMatchObject({ name: 'srv__b', effects: 'exec', idempotent: false, timeoutMs: 1000 });
    expect(tools.tools()[1]).toMatchObject({ name: 'srv__read', effects: 'read', idempotent: true, timeoutMs: 5 });
    expect(tools.update([descriptor('b'), descriptor('read')]).changed).toBe(false);
    expect(tools.tools()[0]).toBe(first);
    expect(tools.update([descriptor('b', { description: 'new' }), descriptor('read')]).changed).toBe(true);
    expect(tools.tools()[0]).not.toBe(first);
  });

  it('uses the title, then a generated line, when the server gives no description', () => {
    const tools = catalog();
    tools.update([
      { name: 'titled', title: 'A title', inputSchema: object },
      { name: 'bare', inputSchema: object },
    ]);
    expect(tools.tools().map((tool) => tool.description)).toEqual(['Tool "bare" of MCP server "srv"', 'A title']);
  });

  it('turns isError into a thrown tool_failed error', async () => {
    const tools = createToolCatalog({
      server: 'srv',
      effects: 'exec',
      timeoutMs: 1000,
      overrides: {},
      compiler: createJsonSchemaCompiler(),
      call: () => Promise.resolve({ content: [{ type: 'text', text: 'no such file' }], isError: true }),
    });
    tools.update([descriptor('read')]);
    const context = { signal: new AbortController().signal, toolCallId: 'c' };
    await expect(tools.tools()[0]?.execute({}, context)).rejects.toMatchObject({
      code: 'tool_failed',
      message: 'no such file',
    });
  });
});
