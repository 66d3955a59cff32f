import type { CallToolResult, Tool as McpToolDescriptor } from '@modelcontextprotocol/sdk/types.js';
import { AgencyError, errorMessage } from '../core/errors.ts';
import type { Tool, ToolContext } from '../tools/define-tool.ts';
import { callSessionTool, type McpCall } from './call-session-tool.ts';
import { isConnectionFailure, isSessionExpired, protocolError, unavailableError } from './call-errors.ts';
import { listAllTools, type McpSession, openSession } from './client-session.ts';
import { type ConnectMcpOptions, type ResolvedConnectOptions, resolveConnectOptions } from './connect-options.ts';
import { createJsonSchemaCompiler } from './json-schema-input.ts';
import type { McpCallFunction } from './mcp-tool.ts';
import type { McpConnection, McpConnectionState, McpStatus } from './mcp-connection.ts';
import { createToolCatalog, type ToolCatalog } from './tool-catalog.ts';

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
      // A background attempt may have failed the same open and already scheduled the next one.
      if (this.timer === undefined) this.scheduleReconnect();
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

  private readonly call: McpCallFunction = async (call, context) => {
    const live = this.live;
    if (!live) throw unavailableError(this.name, this.state, this.lastError);
    try {
      return await this.callOn(live, call, context);
    } catch (error) {
      // runToolCall has already settled the call as timed out or cancelled; nobody reads this error.
      if (context.signal.aborted) throw error;
      if (!isConnectionFailure(error)) throw protocolError(this.name, call.mcpName, error);
      this.lost(live.token, error);
      // The server forgot the session (restarted, or ended it while idle) and never ran the call: MCP says to start
      // a new session, after which the call is safe to send once more.
      if (!isSessionExpired(error)) throw unavailableError(this.name, this.state, error);
      await this.reconnect().catch(() => undefined);
      const fresh = this.live;
      if (!fresh) throw unavailableError(this.name, this.state, error);
      return this.callOn(fresh, call, context);
    }
  };

  private callOn(live: Live, call: McpCall, context: ToolContext): Promise<CallToolResult> {
    return callSessionTool(live.session, call, context, { server: this.name, onProgress: this.options.onProgress });
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
      const info = session.client.getServerVersion();
      this.serverInfo = info && { name: info.name, version: info.version };
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
