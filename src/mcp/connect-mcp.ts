import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult, Tool as McpToolDescriptor } from '@modelcontextprotocol/sdk/types.js';
import { AgencyError, errorMessage } from '../core/errors.ts';
import type { Tool, ToolContext } from '../tools/define-tool.ts';
import { isConnectionFailure, protocolError, unavailableError } from './call-errors.ts';
import { type McpSession, openSession } from './client-session.ts';
import {
  type ConnectMcpOptions,
  MAX_TIMER_MS,
  type ResolvedConnectOptions,
  resolveConnectOptions,
} from './connect-options.ts';
import { createJsonSchemaCompiler } from './json-schema-input.ts';
import type { McpCallFunction } from './mcp-tool.ts';
import { createToolCatalog, type SkippedMcpTool, type ToolCatalog } from './tool-catalog.ts';

/** Where a connection stands. `closed` is final; the others can change at any time. */
export type McpConnectionState = 'connected' | 'reconnecting' | 'disconnected' | 'closed';

/** A snapshot of a connection, for logs and health checks. */
export type McpStatus = {
  state: McpConnectionState;
  /** The server's own name and version, from the handshake. */
  server?: { name: string; version: string };
  /** The server process, for stdio servers while connected. */
  pid?: number;
  /** Background reconnection attempts since the connection was lost. */
  reconnectAttempts: number;
  lastError?: string;
  /** The tail of a stdio server's stderr. */
  stderr?: string;
};

/** A live connection to one MCP server, whose tools are agency tools. */
export type McpConnection = {
  readonly name: string;
  /** The current tools, sorted by name. The list is replaced when the server says it changed. */
  tools(): readonly Tool[];
  /** Tools the server lists that are not exposed, with the reason. */
  skippedTools(): readonly SkippedMcpTool[];
  status(): McpStatus;
  /** Called with the new list whenever tools are added, removed or changed. Returns an unsubscribe function. */
  onToolsChanged(listener: (tools: readonly Tool[]) => void): () => void;
  /** Called whenever the connection state changes. Returns an unsubscribe function. */
  onStatusChange(listener: (status: McpStatus) => void): () => void;
  /** Lists the server's tools again, for servers that do not send `notifications/tools/list_changed`. */
  refreshTools(): Promise<readonly Tool[]>;
  /** Reconnects now, when not connected; resets the background attempt count. */
  reconnect(): Promise<void>;
  /** Ends the session and stops the server process. Calls made afterwards fail with `mcp_unavailable`. */
  close(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
};

/**
 * Connects to an MCP server over stdio or Streamable HTTP and exposes its tools as agency tools named
 * `name__tool`. Calls never throw out of an agent: a lost server, a refused call or an `isError` result each become
 * an error result the model sees.
 *
 * @throws AgencyError `invalid_argument` for bad options, `mcp_unavailable` when the first connection fails.
 * @example
 * const fs = await connectMcp({
 *   name: 'filesystem',
 *   transport: { type: 'stdio', command: 'npx', args: ['@modelcontextprotocol/server-filesystem', dir] },
 *   overrides: { read_text_file: { effects: 'read' } },
 * });
 * const agent = new LLMAgent({ name: 'a', model, dynamicTools: () => fs.tools() });
 */
export async function connectMcp(options: ConnectMcpOptions): Promise<McpConnection> {
  const connection = new Connection(resolveConnectOptions(options));
  await connection.start();
  return connection;
}

type Live = { token: object; session: McpSession };

class Connection implements McpConnection {
  readonly name: string;
  private readonly options: ResolvedConnectOptions;
  private readonly catalog: ToolCatalog;
  private readonly toolListeners = new Set<(tools: readonly Tool[]) => void>();
  private readonly statusListeners = new Set<(status: McpStatus) => void>();
  private state: McpConnectionState = 'reconnecting';
  private live: Live | undefined;
  private opening: { token: object; done: Promise<void>; dirty: boolean } | undefined;
  private refreshing: Promise<readonly Tool[]> | undefined;
  private refreshAgain = false;
  private attempts = 0;
  private timer: NodeJS.Timeout | undefined;
  private lastError: string | undefined;
  private lastStderr = '';
  private serverInfo: { name: string; version: string } | undefined;

  constructor(options: ResolvedConnectOptions) {
    this.name = options.name;
    this.options = options;
    this.catalog = createToolCatalog({
      server: options.name,
      effects: options.effects,
      timeoutMs: options.timeoutMs,
      overrides: options.overrides,
      compiler: createJsonSchemaCompiler(),
      call: this.call,
    });
  }

  async start(): Promise<void> {
    try {
      await this.open();
    } catch (error) {
      this.setState('closed');
      throw error;
    }
  }

  tools = () => this.catalog.tools();
  skippedTools = () => this.catalog.skipped();

  status(): McpStatus {
    const stderr = this.live?.session.stderr() ?? this.lastStderr;
    return {
      state: this.state,
      ...(this.serverInfo ? { server: this.serverInfo } : {}),
      ...(this.live?.session.pid === undefined ? {} : { pid: this.live.session.pid }),
      reconnectAttempts: this.attempts,
      ...(this.lastError === undefined ? {} : { lastError: this.lastError }),
      ...(stderr ? { stderr } : {}),
    };
  }

  onToolsChanged(listener: (tools: readonly Tool[]) => void): () => void {
    this.toolListeners.add(listener);
    return () => this.toolListeners.delete(listener);
  }

  onStatusChange(listener: (status: McpStatus) => void): () => void {
    this.statusListeners.add(listener);
    return () => this.statusListeners.delete(listener);
  }

  refreshTools(): Promise<readonly Tool[]> {
    if (this.refreshing) {
      this.refreshAgain = true;
      return this.refreshing;
    }
    this.refreshing = this.refreshLoop().finally(() => {
      this.refreshing = undefined;
    });
    return this.refreshing;
  }

  async reconnect(): Promise<void> {
    if (this.state === 'closed') throw unavailableError(this.name, 'closed');
    if (this.live) return;
    clearTimeout(this.timer);
    this.attempts = 0;
    this.setState('reconnecting');
    try {
      await this.open();
    } catch (error) {
      this.lastError = errorMessage(error);
      this.setState('disconnected');
      throw error;
    }
  }

  async close(): Promise<void> {
    if (this.state === 'closed') return;
    this.setState('closed');
    clearTimeout(this.timer);
    const live = this.live;
    this.live = undefined;
    await Promise.all([live?.session.close(), this.opening?.done.catch(() => undefined)]);
  }

  [Symbol.asyncDispose] = () => this.close();

  private readonly call: McpCallFunction = async ({ mcpName, agencyName, args }, context) => {
    const live = this.live;
    if (!live) throw unavailableError(this.name, this.state, this.lastError);
    let result: Awaited<ReturnType<Client['callTool']>>;
    try {
      result = await live.session.client.callTool({ name: mcpName, arguments: args }, undefined, {
        signal: context.signal,
        // The tool's own timeout is enforced by runToolCall through the signal, which cancels the request.
        timeout: MAX_TIMER_MS,
        ...this.progressHandler(agencyName, context),
      });
    } catch (error) {
      // runToolCall has already settled the call as timed out or cancelled; nobody reads this error.
      if (context.signal.aborted) throw error;
      if (!isConnectionFailure(error)) throw protocolError(this.name, mcpName, error);
      this.lost(live.token, error);
      throw unavailableError(this.name, this.state, error);
    }
    // Servers on the 2024-10-07 protocol answer with `toolResult` instead of content.
    if (!('content' in result)) return { content: [{ type: 'text', text: JSON.stringify(result.toolResult) }] };
    return result as CallToolResult;
  };

  private progressHandler(tool: string, context: ToolContext) {
    const { onProgress } = this.options;
    if (!onProgress) return {};
    return {
      onprogress: ({ progress, total, message }: { progress: number; total?: number; message?: string }) => {
        try {
          onProgress({
            server: this.name,
            tool,
            toolCallId: context.toolCallId,
            progress,
            ...(total === undefined ? {} : { total }),
            ...(message === undefined ? {} : { message }),
          });
        } catch {
          // A listener's failure must not fail the call.
        }
      },
    };
  }

  // One open at a time: a manual reconnect during a background attempt waits for it.
  private open(): Promise<void> {
    if (this.opening) return this.opening.done;
    const token = {};
    const opening = { token, dirty: false, done: this.openSession(token) };
    this.opening = opening;
    opening.done = opening.done.finally(() => {
      if (this.opening === opening) this.opening = undefined;
    });
    return opening.done;
  }

  private async openSession(token: object): Promise<void> {
    const { transport, clientInfo, connectTimeoutMs } = this.options;
    const session = await openSession(transport, {
      server: this.name,
      clientInfo,
      timeoutMs: connectTimeoutMs,
      onClose: () => this.lost(token, new Error('the server closed the connection')),
      onToolsChanged: () => this.toolsChanged(token),
    });
    try {
      const descriptors = await listAllTools(session.client, connectTimeoutMs);
      if (this.state === 'closed') throw unavailableError(this.name, 'closed');
      this.live = { token, session };
      this.serverInfo = session.client.getServerVersion();
      this.lastError = undefined;
      this.attempts = 0;
      this.apply(descriptors);
      this.setState('connected');
    } catch (error) {
      await session.close();
      if (AgencyError.isInstance(error)) throw error;
      throw new AgencyError(
        'mcp_unavailable',
        `MCP server "${this.name}" failed to list its tools: ${errorMessage(error)}`,
        {
          cause: error,
          details: { server: this.name },
        },
      );
    }
    if (this.opening?.token === token && this.opening.dirty) this.refreshInBackground();
  }

  private toolsChanged(token: object): void {
    if (this.live?.token === token) this.refreshInBackground();
    else if (this.opening?.token === token) this.opening.dirty = true;
  }

  private refreshInBackground(): void {
    this.refreshTools().catch((error: unknown) => {
      this.lastError = errorMessage(error);
    });
  }

  private async refreshLoop(): Promise<readonly Tool[]> {
    do {
      this.refreshAgain = false;
      const live = this.live;
      if (!live) throw unavailableError(this.name, this.state, this.lastError);
      let descriptors: McpToolDescriptor[];
      try {
        descriptors = await listAllTools(live.session.client, this.options.connectTimeoutMs);
      } catch (error) {
        if (isConnectionFailure(error)) this.lost(live.token, error);
        throw AgencyError.from(error, 'mcp_unavailable');
      }
      if (this.live?.token === live.token) this.apply(descriptors);
    } while (this.refreshAgain);
    return this.catalog.tools();
  }

  private apply(descriptors: readonly McpToolDescriptor[]): void {
    if (!this.catalog.update(descriptors).changed) return;
    const tools = this.catalog.tools();
    for (const listener of this.toolListeners) {
      try {
        listener(tools);
      } catch {
        // One listener's failure must not stop the others or the refresh.
      }
    }
  }

  // The live session failed: drop it and, unless closed, start reconnecting in the background.
  private lost(token: object, cause: unknown): void {
    const live = this.live;
    if (live?.token !== token) return;
    this.live = undefined;
    this.lastError = errorMessage(cause);
    this.lastStderr = live.session.stderr();
    live.session.close().catch(() => undefined);
    this.scheduleReconnect();
  }

  private scheduleReconnect(): void {
    if (this.state === 'closed') return;
    const policy = this.options.reconnect;
    if (!policy || this.attempts >= policy.maxAttempts) {
      this.setState('disconnected');
      return;
    }
    const delay = Math.min(policy.initialDelayMs * 2 ** this.attempts, policy.maxDelayMs);
    this.attempts++;
    this.setState('reconnecting');
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.open().catch((error: unknown) => {
        this.lastError = errorMessage(error);
        this.scheduleReconnect();
      });
    }, delay);
    // A pending reconnection must not keep the process alive on its own.
    this.timer.unref();
  }

  private setState(state: McpConnectionState): void {
    if (this.state === state) return;
    this.state = state;
    const status = this.status();
    for (const listener of this.statusListeners) {
      try {
        listener(status);
      } catch {
        // As for tool listeners: isolated.
      }
    }
  }
}

const MAX_PAGES = 100;

async function listAllTools(client: Client, timeout: number): Promise<McpToolDescriptor[]> {
  if (!client.getServerCapabilities()?.tools) return [];
  const tools: McpToolDescriptor[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const result = await client.listTools(cursor === undefined ? undefined : { cursor }, { timeout });
    tools.push(...result.tools);
    cursor = result.nextCursor;
    if (cursor === undefined) break;
  }
  return tools;
}
