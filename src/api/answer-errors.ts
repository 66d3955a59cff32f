// The client side of the API's error table: what an answer (or the lack of one) stands for, as an AgencyError. The
// server's client (`agency/client`) and the worker's client (`src/fleet/worker-client.ts`) both read answers this way.
import { type ErrorCode, isErrorCode } from '../core/error-codes.ts';
import { AgencyError, errorMessage, isAbortError } from '../core/errors.ts';
import { API_ERRORS, type ApiErrorCode } from './errors.ts';
import { z } from 'zod';

/**
 * What a client puts in `AgencyError#details` when an answer is an error: the HTTP `status`, the API's `error` code
 * (`not_found`, `agent_busy`, …), and the body's own details (`field`, `task_id`, `retryable`, …); a worker's
 * client adds its `url`.
 */
export type ApiErrorDetails = { status?: number; error?: string } & Record<string, unknown>;

/** Who was asked what, for the messages and details of the errors below. */
export type Asked = {
  /** Where messages start: `POST /agent/tasks/do`, or `worker http://127.0.0.1:9000: POST /task`. */
  where: string;
  /** Who answers, in messages: `the server`, `the worker`. */
  peer: string;
  /** Details every error carries (a worker's `url`). */
  details?: Record<string, unknown>;
  /** Put `where` before the API's own error messages too. @default true */
  prefixAnswers?: boolean;
};

// The API codes answered without an `agency_code` (by middleware, or by a peer that does not send one), and the
// agency code each stands for. Others are `http_error`.
const FROM_API: Partial<Record<ApiErrorCode, ErrorCode>> = {
  validation_error: 'invalid_argument',
  unsupported_media_type: 'invalid_argument',
  unauthorized: 'unauthorized',
  forbidden: 'forbidden',
  payload_too_large: 'payload_too_large',
  rate_limited: 'rate_limited',
  timeout: 'timeout',
  agent_busy: 'agent_busy',
  task_in_progress: 'task_active',
  already_completed: 'task_finished',
};

// The body of an error answer: `{error, message, details}`; seed 004 puts a few facts (`current_task`, `task_id`,
// `final_state`) beside them too.
const errorAnswerSchema = z
  .object({ error: z.string(), message: z.string(), details: z.record(z.string(), z.unknown()) })
  .catchall(z.unknown());

/**
 * The error an answer with a failing status stands for: the agency code the peer reported (`details.agency_code`),
 * else the one its API code stands for, else `http_error`; with its message, its retryability (`details.retryable`,
 * else the API's table, else 5xx) and its details.
 */
export function errorFromAnswer(status: number, text: string, asked: Asked): AgencyError {
  const parsed = errorAnswerSchema.safeParse(parseJson(text));
  if (!parsed.success) {
    return new AgencyError('http_error', `${asked.where}: HTTP ${status}${excerpt(text)}`, {
      retryable: status >= 500 || status === 429,
      details: { ...asked.details, status, error: 'http_error' } satisfies ApiErrorDetails,
    });
  }
  const { error, message, details, ...beside } = parsed.data;
  const { agency_code: agencyCode, ...rest } = details;
  const code: ErrorCode = isErrorCode(agencyCode) ? agencyCode : (FROM_API[error as ApiErrorCode] ?? 'http_error');
  const retryable =
    typeof rest.retryable === 'boolean'
      ? rest.retryable
      : (API_ERRORS[error as ApiErrorCode]?.retryable ?? status >= 500);
  return new AgencyError(code, asked.prefixAnswers === false ? message : `${asked.where}: ${message}`, {
    retryable,
    details: { ...beside, ...rest, ...asked.details, status, error } satisfies ApiErrorDetails,
  });
}

/**
 * A request that got no answer: `aborted` when the caller's signal stopped it, `timeout` when `timedOutAfterMs` is
 * given (the request's own time ran out), else `network_failed` (refused, reset, DNS), with the cause's words.
 */
export function errorFromNoAnswer(
  error: unknown,
  asked: Asked,
  { signal, timedOutAfterMs }: { signal?: AbortSignal | undefined; timedOutAfterMs?: number | undefined } = {},
): AgencyError {
  const options = { cause: error, ...(asked.details ? { details: asked.details } : {}) };
  if (timedOutAfterMs !== undefined)
    return new AgencyError('timeout', `${asked.where}: no answer within ${seconds(timedOutAfterMs)}`, options);
  if (signal?.aborted || isAbortError(error) || AgencyError.hasCode(error, 'aborted'))
    return new AgencyError('aborted', `${asked.where}: aborted`, { ...options, cause: signal?.reason ?? error });
  const cause = (error as { cause?: unknown }).cause;
  const why = cause === undefined ? errorMessage(error) : `${errorMessage(error)} (${errorMessage(cause)})`;
  return new AgencyError('network_failed', `${asked.where}: no answer from ${asked.peer}: ${why}`, options);
}

/** An answer that is not the API: malformed JSON, a shape its schema refuses, too large. */
export function invalidAnswer(asked: Asked, status: number, problem: string): AgencyError {
  return new AgencyError(
    'response_invalid',
    `${asked.where}: ${asked.peer}'s answer does not match the API: ${problem}`,
    {
      details: { ...asked.details, status, error: 'response_invalid' } satisfies ApiErrorDetails,
    },
  );
}

/** Parses JSON, or returns undefined. */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** The start of a body, on one line, for an error message: `: <h1>oops</h1>`, or nothing for an empty one. */
export function excerpt(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line ? `: ${line.length > 120 ? `${line.slice(0, 120)}…` : line}` : '';
}

function seconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}
