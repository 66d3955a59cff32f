import { API_ERRORS, type ApiErrorCode } from '../api/errors.ts';
import { type ErrorCode, isErrorCode } from '../core/error-codes.ts';
import { AgencyError, errorMessage } from '../core/errors.ts';
import { workerErrorSchema } from './api/worker-schemas.ts';

/**
 * What a worker client puts in `AgencyError#details`: the worker's `url`, and when the worker answered, the HTTP
 * `status`, the wire `error` code (`agent_busy`, `validation_error`, …) and the body's own details (`retryable`,
 * `current_task`, `field`, …).
 */
export type WorkerErrorDetails = { url: string; status?: number; error?: string } & Record<string, unknown>;

// The wire codes of seed 004's table a director acts on, and the agency code each stands for. Other codes become
// the agency code the worker reported (`details.agency_code`), else `http_error`.
const FROM_WIRE: Partial<Record<ApiErrorCode, ErrorCode>> = {
  validation_error: 'invalid_argument',
  not_found: 'task_not_found',
  agent_busy: 'agent_busy',
  task_in_progress: 'task_active',
  already_completed: 'task_finished',
  rate_limited: 'rate_limited',
  timeout: 'timeout',
  unauthorized: 'unauthorized',
  forbidden: 'forbidden',
  payload_too_large: 'payload_too_large',
};

/** The error a worker's answer with a failing status stands for, keeping its wire code, status and retryability. */
export function errorFromAnswer(url: string, what: string, status: number, text: string): AgencyError {
  const parsed = workerErrorSchema.safeParse(parseJson(text));
  if (!parsed.success) {
    return new AgencyError('http_error', `${where(url, what)}: HTTP ${status}${excerpt(text)}`, {
      retryable: status >= 500 || status === 429,
      details: { url, status, error: 'http_error' } satisfies WorkerErrorDetails,
    });
  }
  const { error, message, details, ...extra } = parsed.data;
  const { agency_code: agencyCode, ...rest } = details;
  const code = FROM_WIRE[error as ApiErrorCode] ?? (isErrorCode(agencyCode) ? agencyCode : 'http_error');
  const retryable =
    typeof rest.retryable === 'boolean'
      ? rest.retryable
      : (API_ERRORS[error as ApiErrorCode]?.retryable ?? status >= 500);
  return new AgencyError(code, `${where(url, what)}: ${message}`, {
    retryable,
    details: { ...extra, ...rest, url, status, error } satisfies WorkerErrorDetails,
  });
}

/** A request that got no answer: refused, reset, timed out, or aborted by the caller. */
export function errorFromNoAnswer(
  url: string,
  what: string,
  error: unknown,
  { timedOut, timeoutMs }: { timedOut: boolean; timeoutMs: number },
): AgencyError {
  const details = { url } satisfies WorkerErrorDetails;
  if (timedOut) {
    return new AgencyError('timeout', `${where(url, what)}: no answer within ${seconds(timeoutMs)}`, {
      cause: error,
      details,
    });
  }
  if ((error as { name?: unknown }).name === 'AbortError' || AgencyError.hasCode(error, 'aborted'))
    return new AgencyError('aborted', `${where(url, what)}: aborted`, { cause: error, details });
  const cause = (error as { cause?: unknown }).cause;
  const why = cause === undefined ? errorMessage(error) : errorMessage(cause);
  return new AgencyError('network_failed', `${where(url, what)}: no answer: ${why}`, { cause: error, details });
}

/** An answer that is not the worker API: malformed JSON, or a shape the schema refuses. */
export function invalidAnswer(url: string, what: string, status: number, problem: string): AgencyError {
  return new AgencyError('response_invalid', `${where(url, what)}: the answer is not the worker API: ${problem}`, {
    details: { url, status, error: 'response_invalid' } satisfies WorkerErrorDetails,
  });
}

/** Parses JSON, or returns undefined. */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** The start of a body, on one line, for an error message. */
export function excerpt(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line ? `: ${line.length > 120 ? `${line.slice(0, 120)}…` : line}` : '';
}

function where(url: string, what: string): string {
  return `worker ${url}: ${what}`;
}

function seconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}
