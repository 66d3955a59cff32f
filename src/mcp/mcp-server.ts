import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { AgencyError } from '../core/errors.ts';
import type { Tool } from '../tools/define-tool.ts';
import { listenMcpHttp, type McpHttpListener, type McpHttpOptions } from './http-server.ts';
import type { McpCapability } from './mcp-capability.ts';
import { createToolsCapability } from './tools-capability.ts';

/** Options for {@link createMcpServer}. */
export type McpServerOptions = {
  /** The name MCP clients see in the handshake. */
  name: string;
  /** @default '0.0.0' */
  version?: string;
  /** Tells clients (and their models) how to use this server. @default the first capability's `instructions` */
  instructions?: string;
  /** Tools to expose from the start; more can be added with `registerTools`. */
  tools?: readonly Tool[];
  /**
   * More to serve besides the tools, each installed on every session: its tools, its request handlers (resources,
   * subscriptions …) and notifications. Governed tasks are one (`agency mcp`, `agency serve --mcp-port`).
   */
  capabilities?: readonly McpCapability[];
};

/** An MCP server exposing agency tools (and its capabilities) over stdio, Streamable HTTP, or any SDK transport. */
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
  /**
   * Serves Streamable HTTP, bound to 127.0.0.1 with Host and Origin checks by default.
   * @throws AgencyError `invalid_argument` when a capability acts as a principal (`needsPrincipal`) and no `tokens`
   * are given.
   */
  listenHttp(options?: McpHttpOptions): Promise<McpHttpListener>;
  /** Ends every session and stops every HTTP listener. */
  close(): Promise<void>;
};

/**
 * Creates an MCP server for agency tools. Each call goes through `runToolCall`, so arguments are validated against
 * the tool's schema, the tool's timeout applies, a client's cancellation aborts it, and failures come back as
 * error results (`isError`) instead of protocol errors.
 *
 * With `capabilities`, it serves more than tools: each adds its tools, handlers and instructions (see `docs/mcp.md`).
 *
 * @example
 * const server = createMcpServer({ name: 'agency-tools', tools: [add] });
 * const http = await server.listenHttp({ port: 3333 }); // http://127.0.0.1:3333/mcp
 */
export function createMcpServer(options: McpServerOptions): AgencyMcpServer {
  const { name, version = '0.0.0', tools = [], capabilities: extra = [] } = options ?? ({} as McpServerOptions);
  if (typeof name !== 'string' || name.trim() === '') {
    throw new AgencyError('invalid_argument', 'createMcpServer needs a "name", e.g. "agency-tools"', {
      details: { field: 'name' },
    });
  }
  checkCapabilities(extra);
  const instructions = options.instructions ?? extra.find((capability) => capability.instructions)?.instructions;
  const principals = extra.filter((capability) => capability.needsPrincipal);
  const sessions = new Set<Server>();
  const listeners = new Set<McpHttpListener>();
  const toolsCapability = createToolsCapability(() => {
    for (const session of sessions) session.sendToolListChanged().catch(() => undefined);
  });
  const capabilities: McpCapability[] = [toolsCapability, ...extra];
  toolsCapability.register(tools);
  for (const capability of extra) toolsCapability.add(capability.tools ?? []);

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
      if (principals.length > 0 && httpOptions.tokens === undefined)
        throw new AgencyError(
          'invalid_argument',
          `Serving ${principals[0]!.name} over HTTP needs "tokens": each request acts as the name of its bearer token`,
          { details: { field: 'tokens' } },
        );
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

function checkCapabilities(capabilities: readonly McpCapability[]): void {
  if (!Array.isArray(capabilities))
    throw new AgencyError('invalid_argument', 'createMcpServer: "capabilities" must be an array', {
      details: { field: 'capabilities' },
    });
  const bad = capabilities.findIndex(
    (capability) => typeof capability?.install !== 'function' || typeof capability.name !== 'string',
  );
  if (bad >= 0)
    throw new AgencyError(
      'invalid_argument',
      `createMcpServer: "capabilities.${bad}" must be a capability ({ name, capabilities, install })`,
      { details: { field: `capabilities.${bad}` } },
    );
}
