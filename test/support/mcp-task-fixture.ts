// An agency MCP server serving governed tasks from a throwaway data root (scripted phase model, fixture tools), and
// official SDK clients connected to it in memory or over Streamable HTTP.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult, Progress, ReadResourceResult } from '@modelcontextprotocol/sdk/types.js';
import { expect } from 'vitest';
import type { InboxItem, TaskAction } from '../../src/api/schemas.ts';
import { type AgencyMcpServer, createMcpServer } from '../../src/mcp/mcp-server.ts';
import type { FollowResult } from '../../src/server/mcp/follow-task.ts';
import { createTasksCapability, type McpTasksOptions } from '../../src/server/mcp/tasks-capability.ts';
import { type ServerFixture, serverFixture } from './server-fixture.ts';
import type { PhaseScript } from './governed-fixture.ts';

export type McpTaskFixture = ServerFixture & {
  mcp: AgencyMcpServer;
  /** A new SDK client over an in-memory pair: it acts as the server's own principal. */
  connect(): Promise<Client>;
  close(): Promise<void>;
};

export async function mcpTaskFixture(
  options: { script?: PhaseScript; tasks?: Partial<McpTasksOptions> } = {},
): Promise<McpTaskFixture> {
  const fixture = await serverFixture(options.script ? { script: options.script } : {});
  const mcp = createMcpServer({
    name: 'agency-tasks',
    version: '0.1.0',
    capabilities: [createTasksCapability({ service: fixture.service, principal: 'olivia', ...options.tasks })],
  });
  const clients: Client[] = [];
  return {
    ...fixture,
    mcp,
    async connect() {
      const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
      await mcp.connect(serverSide);
      const client = new Client({ name: 'sdk-client', version: '1.0.0' });
      await client.connect(clientSide);
      clients.push(client);
      return client;
    },
    async close() {
      await Promise.all(clients.map((client) => client.close()));
      await mcp.close();
      await fixture.service.close();
    },
  };
}

/** A new SDK client over Streamable HTTP with a bearer token. */
export async function httpClient(url: string, token: string): Promise<Client> {
  const client = new Client({ name: 'sdk-http-client', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${token}` } } }),
  );
  return client;
}

/** Calls a tool and returns its structured answer; fails the test on an error result. */
export async function callJson<T = Record<string, unknown>>(
  client: Client,
  name: string,
  args: Record<string, unknown>,
  options: { onprogress?: (progress: Progress) => void } = {},
): Promise<T> {
  const { onprogress } = options;
  const result = (await client.callTool(
    { name, arguments: args },
    undefined,
    onprogress ? { onprogress, resetTimeoutOnProgress: true } : {},
  )) as CallToolResult;
  if (result.isError) throw new Error(`${name} failed: ${JSON.stringify(result.content)}`);
  return result.structuredContent as T;
}

/** The text of a resource read's first content. */
export function resourceText(result: ReadResourceResult): string {
  const first = result.contents[0];
  if (!first || !('text' in first)) throw new Error(`not a text resource: ${JSON.stringify(result)}`);
  return first.text;
}

/** Calls a tool that should fail, and returns its error body (`{ error, message, details }`). */
export async function callError(
  client: Client,
  name: string,
  args: Record<string, unknown>,
): Promise<{ error: string; message: string; details: Record<string, unknown> }> {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  if (!result.isError) throw new Error(`${name} succeeded: ${JSON.stringify(result.structuredContent)}`);
  return result.structuredContent as { error: string; message: string; details: Record<string, unknown> };
}

export const brief = '# Summarise the notes\n\nWrite a one-line summary of task/input.txt to artifacts/summary.md.\n';
export const files = [{ name: 'input.txt', content: 'Agency runs governed agents. They plan, ask, act and verify.\n' }];

/** Starts the fixture task and follows it until it waits for its plan approval. */
export async function startAndWait(
  client: Client,
): Promise<{ taskId: string; pending: InboxItem; messages: string[] }> {
  const started = await callJson<TaskAction>(client, 'start_task', { brief, files });
  expect(started).toMatchObject({ status: 'queued' });
  const messages: string[] = [];
  const followed = await callJson<FollowResult>(
    client,
    'follow_task',
    { task_id: started.task_id },
    { onprogress: (progress) => messages.push(progress.message ?? '') },
  );
  expect(followed.ended_because).toBe('waiting_approval');
  expect(followed.task.status).toBe('waiting_approval');
  expect(followed.pending_approvals).toHaveLength(1);
  return { taskId: started.task_id, pending: followed.pending_approvals[0]!, messages };
}
