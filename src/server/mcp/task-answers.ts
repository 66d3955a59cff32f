import { type CallToolResult, ErrorCode } from '@modelcontextprotocol/sdk/types.js';
import type { ServiceLogger } from '../../service/service-logger.ts';
import { errorResponse } from '../../service/error-response.ts';
import { ERROR_CODE_META } from '../../mcp/tool-outcome-result.ts';

/** A JSON answer of a task tool: the JSON as text for the model, and as `structuredContent` for programs. */
export function jsonResult(value: object): CallToolResult {
  return {
    content: [{ type: 'text', text: JSON.stringify(value, null, 2) }],
    structuredContent: value as Record<string, unknown>,
  };
}

/**
 * A failed task tool call as a result with `isError`, so the client's model can read it and correct itself. The
 * body is the HTTP API's error body (`{ error, message, details }`, the same codes, `details.field` naming the bad
 * field); an unexpected failure is logged and reported as `internal_error` without its stack.
 */
export function errorResult(error: unknown, logger: ServiceLogger, where: string): CallToolResult {
  const { body } = errorResponse(error, logger, where);
  const agencyCode = typeof body.details.agency_code === 'string' ? body.details.agency_code : 'internal';
  return {
    content: [{ type: 'text', text: `${body.error}: ${body.message}` }],
    structuredContent: body,
    isError: true,
    _meta: { [ERROR_CODE_META]: agencyCode },
  };
}

/** MCP's code for a resource that does not exist. */
export const RESOURCE_NOT_FOUND = -32002;

/**
 * A failed resource request as a JSON-RPC error: not found (-32002), invalid params for validation errors, invalid
 * request for conflicts, internal error otherwise; the API's error body rides in `data`. (Not an `McpError`, whose
 * message would carry its code twice once the client wraps it.)
 */
export function protocolErrorOf(error: unknown, logger: ServiceLogger, where: string): Error {
  const { body } = errorResponse(error, logger, where);
  const code =
    body.error === 'not_found'
      ? RESOURCE_NOT_FOUND
      : body.error === 'validation_error' || body.error === 'payload_too_large'
        ? ErrorCode.InvalidParams
        : body.error === 'internal_error'
          ? ErrorCode.InternalError
          : ErrorCode.InvalidRequest;
  return Object.assign(new Error(`${body.error}: ${body.message}`), { code, data: body });
}
