import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { AgencyError } from '../core/errors.ts';
import type { Tool } from '../tools/define-tool.ts';
import { listenMcpHttp, type McpHttpListener, type McpHttpOptions } from './http-server.ts';
import { createTasksCapability, type McpTasksOptions } from './tasks-capability.ts';
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
  /**
   * Serves governed tasks through a task service: tools to start, follow, stop, resume and read tasks and to decide
   * approvals, `agency://` resources for task folders, and progress notifications. Over HTTP it needs `tokens`.
   */
  tasks?: McpTasksOptions;
};

/** An MCP server exposing agency tools (and governed tasks) over stdio, Streamable HTTP, or any SDK transport. */
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
   * @throws AgencyError `invalid_argument` when governed tasks are served without `tokens`.
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
 * With `tasks`, it also serves governed tasks through the given task service (see `docs/mcp.md`).
 *
 * @example
 * const server = createMcpServer({ name: 'agency-tools', tools: [add] });
 * const http = await server.listenHttp({ port: 3333 }); // http://127.0.0.1:3333/mcp
 * @example
 * const server = createMcpServer({ name: 'agency', tasks: { service, principal: 'ana' } });
 * await server.serveStdio();
 */
export function createMcpServer(options: McpServerOptions): AgencyMcpServer {
  const { name, version = '0.0.0', tools = [], tasks } = options ?? ({} as McpServerOptions);
  const instructions = options?.instructions ?? (tasks ? TASK_INSTRUCTIONS : undefined);
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
  if (tasks) {
    checkTasksOptions(tasks);
    capabilities.push(createTasksCapability(tasks, toolsCapability));
  }

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
      if (tasks && httpOptions.tokens === undefined)
        throw new AgencyError(
          'invalid_argument',
          'Serving governed tasks over HTTP needs "tokens": each request acts as the name of its bearer token',
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

const TASK_INSTRUCTIONS =
  'This server runs governed agent tasks. start_task starts one from a Markdown brief; follow_task follows it until ' +
  'it ends or waits for an approval; list_approvals shows what waits (the plan, or the tool call); decide_approval ' +
  'approves or denies it with a reason, signed with your name, so ask the user before deciding; get_task and ' +
  'read_deliverable read the outcome. Tasks are also resources: agency://tasks/{task_id}, …/events, …/deliverables/{path}.';

function checkTasksOptions(tasks: McpTasksOptions): void {
  const invalid = (field: string, problem: string) =>
    new AgencyError('invalid_argument', `createMcpServer: "tasks.${field}" ${problem}`, {
      details: { field: `tasks.${field}` },
    });
  if (typeof tasks.service?.start !== 'function') throw invalid('service', 'must be a TaskService (createTaskService)');
  if (tasks.principal !== undefined && (typeof tasks.principal !== 'string' || tasks.principal.trim() === ''))
    throw invalid('principal', 'must be a non-empty name');
  const max = tasks.maxReadBytes;
  if (max !== undefined && (!Number.isInteger(max) || max < 1))
    throw invalid('maxReadBytes', 'must be a positive integer');
}
