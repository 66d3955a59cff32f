import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { AgencyError } from '../core/errors.ts';
import type { Tool } from '../tools/define-tool.ts';
import { listenMcpHttp, type McpHttpListener, type McpHttpOptions } from './http-server.ts';
import { createToolsCapability, type McpCapability } from './tools-capability.ts';

/** Options for {@link createMcpServer}. */
export type McpServerOptions = {
  /** The name MCP clients see in the handshake. */
  name: string;
  /** @default '0.0.0' */
  version?: string;
  /** Tells clients (and their models) how to use this server. */
  instructions?: string;
  /** Tools to expose from the start; more can be added with `registerTools`. */
  tools?: readonly Tool[];
};

/** An MCP server exposing agency tools over stdio, Streamable HTTP, or any SDK server transport. */
export type AgencyMcpServer = {
  /**
   * Adds tools. Clients already connected are sent `notifications/tools/list_changed`.
   * @throws AgencyError `tool_definition_invalid` when a name is already taken.
   */
  registerTools(tools: readonly Tool[]): void;
  /** The registered tools, sorted by name. */
  tools(): readonly Tool[];
  /** Serves one client over an SDK server transport (e.g. `InMemoryTransport`). */
  connect(transport: Transport): Promise<void>;
  /** Serves the client on this process's stdin and stdout. Log to stderr only: stdout carries the protocol. */
  serveStdio(): Promise<void>;
  /** Serves Streamable HTTP, bound to 127.0.0.1 with Host and Origin checks by default. */
  listenHttp(options?: McpHttpOptions): Promise<McpHttpListener>;
  /** Ends every session and stops every HTTP listener. */
  close(): Promise<void>;
};

/**
 * Creates an MCP server for agency tools. Each call goes through `runToolCall`, so arguments are validated against
 * the tool's schema, the tool's timeout applies, a client's cancellation aborts it, and failures come back as
 * error results (`isError`) instead of protocol errors.
 *
 * @example
 * const server = createMcpServer({ name: 'agency-tools', tools: [add] });
 * const http = await server.listenHttp({ port: 3333 }); // http://127.0.0.1:3333/mcp
 */
export function createMcpServer(options: McpServerOptions): AgencyMcpServer {
  const { name, version = '0.0.0', instructions, tools = [] } = options ?? ({} as McpServerOptions);
  if (typeof name !== 'string' || name.trim() === '') {
    throw new AgencyError('invalid_argument', 'createMcpServer needs a "name", e.g. "agency-tools"', {
      details: { field: 'name' },
    });
  }
  const sessions = new Set<Server>();
  const listeners = new Set<McpHttpListener>();
  const toolsCapability = createToolsCapability(() => {
    for (const session of sessions) session.sendToolListChanged().catch(() => undefined);
  });
  const capabilities: McpCapability[] = [toolsCapability];
  toolsCapability.register(tools);

  const newSession = (): Server => {
    const declared = Object.assign({}, ...capabilities.map((capability) => capability.capabilities));
    // The low-level Server, not McpServer: agency tools already carry JSON Schemas, and McpServer wants zod.
    const server = new Server({ name, version }, { capabilities: declared, ...(instructions ? { instructions } : {}) });
    const cleanups = capabilities.map((capability) => capability.install(server));
    sessions.add(server);
    server.onclose = () => {
      sessions.delete(server);
      for (const cleanup of cleanups) cleanup?.();
    };
    return server;
  };

  return {
    registerTools: (more) => toolsCapability.register(more),
    tools: () => toolsCapability.list(),
    connect: (transport) => newSession().connect(transport),
    async serveStdio() {
      const { StdioServerTransport } = await import('@modelcontextprotocol/sdk/server/stdio.js');
      await newSession().connect(new StdioServerTransport());
    },
    async listenHttp(httpOptions = {}) {
      const listener = await listenMcpHttp(newSession, httpOptions);
      listeners.add(listener);
      return {
        url: listener.url,
        port: listener.port,
        close: async () => {
          listeners.delete(listener);
          await listener.close();
        },
      };
    },
    async close() {
      await Promise.all([...listeners].map((listener) => listener.close()));
      await Promise.all([...sessions].map((session) => session.close().catch(() => undefined)));
    },
  };
}
