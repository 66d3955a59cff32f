import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const SERVER = fileURLToPath(new URL('./__fixtures__/stdio-server.ts', import.meta.url));
let client: Client;

beforeAll(async () => {
  client = new Client({ name: 'sdk-client', version: '1.0.0' });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [SERVER], stderr: 'pipe' }));
});

afterAll(async () => {
  await client?.close();
});

describe('createMcpServer over stdio, with the official SDK client', () => {
  it('lists, calls, and returns validation errors as results', async () => {
    expect(client.getServerVersion()).toMatchObject({ name: 'agency-stdio', version: '1.0.0' });
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(['add']);
    expect(await client.callTool({ name: 'add', arguments: { a: 2, b: 3 } })).toEqual({
      content: [{ type: 'text', text: '5' }],
    });
    const invalid = await client.callTool({ name: 'add', arguments: { a: 2 } });
    expect(invalid).toMatchObject({ isError: true, _meta: { 'agency/error-code': 'tool_invalid_input' } });
    expect(JSON.stringify(invalid.content)).toContain('- b: ');
  });
});
