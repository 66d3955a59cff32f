import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { AgencyError, errorMessage } from '../core/errors.ts';

/**
 * True when a failed request means the connection itself is gone (the process exited, the HTTP server does not
 * answer, the session expired) rather than the server answering with an error.
 */
export function isConnectionFailure(error: unknown): boolean {
  if (error instanceof McpError) return error.code === ErrorCode.ConnectionClosed;
  // A result that fails the SDK's schema is the server's bug, not a broken connection.
  if (typeof error === 'object' && error !== null && Array.isArray((error as { issues?: unknown }).issues))
    return false;
  // Everything else is the transport failing: "Not connected", fetch errors, HTTP statuses, a closed pipe.
  return true;
}

/** True when a Streamable HTTP server answered 404 to a session's request: it no longer knows the session. */
export function isSessionExpired(error: unknown): boolean {
  return (
    typeof error === 'object' &&
    error !== null &&
    (error as { code?: unknown }).code === 404 &&
    !(error instanceof McpError)
  );
}

/** The error a tool call fails with when the server answered with a JSON-RPC error. */
export function protocolError(server: string, tool: string, error: unknown): AgencyError {
  if (error instanceof McpError && error.code === ErrorCode.RequestTimeout) {
    return new AgencyError('tool_timeout', `MCP server "${server}" did not answer in time`, {
      cause: error,
      details: { server, tool },
    });
  }
  return new AgencyError('tool_failed', `MCP server "${server}" refused the call: ${errorMessage(error)}`, {
    cause: error,
    details: { server, tool },
  });
}

/** The error a tool call fails with while its server is unreachable. The message is written for the model. */
export function unavailableError(server: string, state: string, cause?: unknown): AgencyError {
  const why = cause === undefined ? '' : ` (${errorMessage(cause)})`;
  const next =
    state === 'reconnecting'
      ? 'agency is reconnecting; you may retry shortly, or continue without this tool.'
      : 'Continue without its tools, or tell the user the server is unavailable.';
  return new AgencyError('mcp_unavailable', `MCP server "${server}" is not connected${why}. ${next}`, {
    cause,
    details: { server, state },
  });
}
