import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type {
  CallToolResult,
  Tool as McpToolDescriptor,
  ServerCapabilities,
  ServerNotification,
  ServerRequest,
} from '@modelcontextprotocol/sdk/types.js';

/** What a request handler of a session gets from the SDK: the abort signal, auth info, progress token, notifier. */
export type McpRequestExtra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/** A tool the server answers itself, with the request's context (who asks, its progress token, its signal). */
export type McpToolEntry = {
  readonly descriptor: McpToolDescriptor;
  call(args: Record<string, unknown>, extra: McpRequestExtra): Promise<CallToolResult>;
};

/**
 * Something the MCP server offers, installed on every session: its capabilities, its request handlers, and a cleanup
 * run when the session ends. Tools are one, built in; others are given to `createMcpServer` in `capabilities` (the
 * governed tasks of `agency serve --mcp-port` and `agency mcp` are one: tools, resources and notifications).
 */
export type McpCapability = {
  /** What it serves, for messages, e.g. `governed tasks`. */
  readonly name: string;
  /** Declared in the handshake, merged with the other capabilities'. */
  readonly capabilities: ServerCapabilities;
  /** Tools it answers itself, listed beside the agency tools; names are shared and must be unique. */
  readonly tools?: readonly McpToolEntry[];
  /** Tells clients how to use it, when the server is given no `instructions`. */
  readonly instructions?: string;
  /**
   * Its requests act as someone (they sign decisions, say): over HTTP each must carry a bearer token, whose name it
   * acts as, so `listenHttp` refuses to serve it without `tokens`.
   */
  readonly needsPrincipal?: boolean;
  install(server: Server): void | (() => void);
};
