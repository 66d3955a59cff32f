// agency/mcp: connect to MCP servers and use their tools as agency tools, and serve agency tools over MCP.

export type { McpTransportOptions } from './client-session.ts';
export { type ConnectMcpOptions, type McpProgressEvent, type McpReconnectPolicy } from './connect-options.ts';
export { connectMcp, type McpConnection, type McpConnectionState, type McpStatus } from './connect-mcp.ts';
export { mcpErrorText, mcpResultToModelOutput } from './mcp-output.ts';
export type { McpToolOverride, SkippedMcpTool } from './tool-catalog.ts';
export { assignToolNames, NAME_SEPARATOR } from './tool-names.ts';
export type { McpHttpListener, McpHttpOptions } from './http-server.ts';
export { type AgencyMcpServer, createMcpServer, type McpServerOptions } from './mcp-server.ts';
export { ERROR_CODE_META } from './tool-outcome-result.ts';
