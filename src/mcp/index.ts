// agency/mcp: use the tools of MCP servers as agency tools, and serve agency tools (and more, as capabilities) to MCP
// clients. The governed-tasks capability is an adapter over the task service, beside the HTTP API: see agency/server.

// client
export type { McpTransportOptions } from './client-session.ts';
export { connectMcp } from './connect-mcp.ts';
export type { ConnectMcpOptions, McpProgressEvent, McpReconnectPolicy } from './connect-options.ts';
export type { McpConnection, McpConnectionState, McpStatus } from './mcp-connection.ts';
export type { McpToolOverride, SkippedMcpTool } from './tool-catalog.ts';
export { assignToolNames, NAME_SEPARATOR } from './tool-names.ts';

// server
export type { McpHttpListener, McpHttpOptions } from './http-server.ts';
export type { McpCapability, McpRequestExtra, McpToolEntry } from './mcp-capability.ts';
export { type AgencyMcpServer, createMcpServer, type McpServerOptions } from './mcp-server.ts';
export { ERROR_CODE_META } from './tool-outcome-result.ts';
