import { apiCodeOf, errorBody } from '../api/errors.ts';
import type { ErrorBody } from '../api/schemas.ts';
import { AgencyError } from '../core/errors.ts';
import type { ServiceLogger } from './service-logger.ts';

/**
 * The status and body an error is answered with, over HTTP and MCP alike: an `AgencyError` by its code (through the
 * API's table), anything else as `internal_error`, logged with its stack and never sent one. Messages of known errors
 * are redacted by the error itself (`AgencyError.toJSON`), since they may quote input.
 */
export function errorResponse(
  error: unknown,
  logger: ServiceLogger,
  where: string,
): { status: number; body: ErrorBody } {
  if (AgencyError.isInstance(error) && error.code !== 'internal') {
    const code = apiCodeOf(error.code);
    if (code === 'internal_error') logger.error({ err: error, where }, 'request failed');
    const json = error.toJSON() as { message: string; details?: Record<string, unknown> };
    return errorBody(
      code,
      code === 'internal_error' ? 'Internal error; the server log has the details' : json.message,
      {
        ...(code === 'internal_error' ? {} : (json.details ?? {})),
        ...(code === 'internal_error' ? {} : { agency_code: error.code }),
      },
    );
  }
  logger.error({ err: error, where }, 'request failed');
  return errorBody('internal_error', 'Internal error; the server log has the details', {});
}
