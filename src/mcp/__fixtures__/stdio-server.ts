// An agency MCP server on stdio, started by stdio-server.test.ts as a child process.
import { z } from 'zod';
import { defineTool } from '../../tools/define-tool.ts';
import { createMcpServer } from '../mcp-server.ts';

const add = defineTool({
  name: 'add',
  description: 'Adds two numbers',
  input: z.object({ a: z.number(), b: z.number() }),
  effects: 'read',
  execute: ({ a, b }) => a + b,
});

await createMcpServer({ name: 'agency-stdio', version: '1.0.0', tools: [add] }).serveStdio();
