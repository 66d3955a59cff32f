import type { Tool } from '../tools/define-tool.ts';
import type { SkippedMcpTool } from './tool-catalog.ts';

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
  /**
   * Reconnects now, when not connected, and resets the background attempt count. When it fails, it throws and the
   * background attempts go on (unless `reconnect: false`).
   */
  reconnect(): Promise<void>;
  /** Ends the session and stops the server process. Calls made afterwards fail with `mcp_unavailable`. */
  close(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
};
