import { API_ERRORS, type ApiErrorCode } from '../api/errors.ts';
import { errorBodySchema } from '../api/schemas.ts';
import { type ErrorCode, isErrorCode } from '../core/error-codes.ts';
import { AgencyError, errorMessage, isAbortError } from '../core/errors.ts';

/**
 * What the client puts in `AgencyError#details` when the server refuses a request: the HTTP `status`, the API's
 * `error` code (`not_found`, `task_in_progress`, …), and the body's own details (`field`, `task_id`, `retryable`, …).
 */
export type ApiErrorDetails = { status: number; error: string } & Record<string, unknown>;

// The API codes the server's middleware answers with, which carry no `agency_code`: the agency code each stands for.
const FROM_API: Partial<Record<ApiErrorCode, ErrorCode>> = {
  validation_error: 'invalid_argument',
  unsupported_media_type: 'invalid_argument',
  unauthorized: 'unauthorized',
  forbidden: 'forbidden',
  payload_too_large: 'payload_too_large',
  rate_limited: 'rate_limited',
  timeout: 'timeout',
};

/**
 * The error an answer with a failing status stands for: the agency code the server reported (`details.agency_code`),
 * else the one its API code stands for, else `http_error`; with the server's message and retryability.
 */
export async function errorFromResponse(response: Response, what: string): Promise<AgencyError> {
  const text = await response.text().catch(() => '');
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  const parsed = errorBodySchema.safeParse(json);
  if (!parsed.success) {
    const excerpt = text.replace(/\s+/g, ' ').trim().slice(0, 200);
    return new AgencyError('http_error', `${what}: HTTP ${response.status}${excerpt ? `: ${excerpt}` : ''}`, {
      retryable: response.status >= 500 || response.status === 429,
      details: { status: response.status, error: 'http_error' } satisfies ApiErrorDetails,
    });
  }
  const { error, message, details } = parsed.data;
  const { agency_code: agencyCode, ...rest } = details;
  const code: ErrorCode = isErrorCode(agencyCode) ? agencyCode : (FROM_API[error as ApiErrorCode] ?? 'http_error');
  const retryable =
    typeof rest.retryable === 'boolean'
      ? rest.retryable
      : (API_ERRORS[error as ApiErrorCode]?.retryable ?? response.status >= 500);
  return new AgencyError(code, message, {
    retryable,
    details: { ...rest, status: response.status, error } satisfies ApiErrorDetails,
  });
}

/** A request that got no answer: the network failed, or the caller aborted it. */
export function networkError(error: unknown, what: string, signal: AbortSignal | undefined): AgencyError {
  if (signal?.aborted || isAbortError(error))
    return new AgencyError('aborted', `${what}: aborted`, { cause: signal?.reason ?? error });
  const cause = (error as { cause?: unknown }).cause;
  const why = cause === undefined ? errorMessage(error) : `${errorMessage(error)} (${errorMessage(cause)})`;
  return new AgencyError('network_failed', `${what}: no answer from the server: ${why}`, { cause: error });
}

/** An answer that does not match the API's schema. */
export function invalidResponse(what: string, problem: string, status: number): AgencyError {
  return new AgencyError('response_invalid', `${what}: the server's answer does not match the API: ${problem}`, {
    details: { status, error: 'response_invalid' } satisfies ApiErrorDetails,
  });
}
