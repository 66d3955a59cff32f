import { APICallError, InvalidResponseDataError, JSONParseError } from '@ai-sdk/provider';
import type { ErrorCode } from '../core/error-codes.ts';
import { AgencyError, errorMessage, isAbortError } from '../core/errors.ts';

/** How a model failure should be handled: wait and retry, retry now, or give up. */
export type ModelErrorClass = 'rate_limit' | 'retryable' | 'fatal';

/** What {@link classifyModelError} found out about a failure. */
export type ModelErrorInfo = {
  class: ModelErrorClass;
  /** HTTP status, when the failure was an HTTP response. */
  status?: number;
  /** The provider's error type, e.g. `rate_limit_error`, `invalid_request_error`, `insufficient_quota`. */
  providerType?: string;
  /** The provider's error code, e.g. `insufficient_quota`, `unsupported_value`. */
  providerCode?: string;
  /** How long the provider asked us to wait, from `retry-after-ms` or `retry-after`. */
  retryAfterMs?: number;
  /** The wall-clock time (epoch ms) the provider asked us to wait until: `retry-after`'s date, or now + its delay. */
  retryAt?: number;
  /** The network error code, e.g. `ECONNRESET`. */
  networkCode?: string;
  message: string;
};

// Provider error types and codes whose meaning overrides the HTTP status (e.g. OpenAI sends quota exhaustion as 429).
const FATAL_TYPES = new Set([
  'insufficient_quota',
  'invalid_request_error',
  'authentication_error',
  'permission_error',
  'not_found_error',
  'billing_error',
  'invalid_api_key',
  'unsupported_value',
  'context_length_exceeded',
  'model_not_found',
]);
const RATE_LIMIT_TYPES = new Set(['rate_limit_error', 'rate_limit_exceeded', 'requests', 'tokens']);
const RETRYABLE_TYPES = new Set([
  'overloaded_error',
  'api_error',
  'server_error',
  'timeout_error',
  'service_unavailable',
]);
const NETWORK_CODES = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ENETUNREACH',
  'EHOSTUNREACH',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'UND_ERR_CLOSED',
]);

/**
 * Classifies a failed model call from its HTTP status, the provider's error type and code, and network error codes.
 * A provider type or code wins over the status: a 429 with `insufficient_quota` is fatal, not a rate limit.
 */
export function classifyModelError(error: unknown, now: number = Date.now()): ModelErrorInfo {
  if (APICallError.isInstance(error)) return classifyApiCallError(error, now);
  if (isStreamEndedEarly(error)) return { class: 'retryable', message: errorMessage(error) };
  const body = providerErrorBody(error);
  if (body) {
    return {
      class: classOf(body.type, body.code, undefined),
      ...(body.type === undefined ? {} : { providerType: body.type }),
      ...(body.code === undefined ? {} : { providerCode: body.code }),
      message: body.message ?? errorMessage(error),
    };
  }
  const networkCode = findNetworkCode(error);
  if (networkCode) return { class: 'retryable', networkCode, message: errorMessage(error) };
  if (isTypeError(error) && /fetch failed|network|terminated|socket/i.test(errorMessage(error))) {
    return { class: 'retryable', message: errorMessage(error) };
  }
  return { class: 'fatal', message: errorMessage(error) };
}

/** The AgencyError code for a class of model failure. */
export function errorCodeForClass(errorClass: ModelErrorClass): ErrorCode {
  return errorClass === 'rate_limit'
    ? 'model_rate_limit'
    : errorClass === 'retryable'
      ? 'model_retryable'
      : 'model_fatal';
}

/**
 * Wraps a failed model call in an AgencyError carrying its classification in `details`. `now` dates a
 * `retry-after` given in seconds.
 */
export function toModelError(
  error: unknown,
  model?: { provider: string; modelId: string },
  now: number = Date.now(),
): AgencyError {
  if (AgencyError.isInstance(error)) return error;
  if (isAbortError(error)) return AgencyError.from(error);
  const info = classifyModelError(error, now);
  const where = model ? `${model.provider}:${model.modelId}` : 'model';
  const status =
    info.status === undefined ? '' : ` (HTTP ${info.status}${info.providerType ? ` ${info.providerType}` : ''})`;
  return new AgencyError(errorCodeForClass(info.class), `${where} failed${status}: ${info.message}`, {
    cause: error,
    details: { ...info, ...(model ? { provider: model.provider, modelId: model.modelId } : {}) },
  });
}

function classifyApiCallError(error: APICallError, now: number): ModelErrorInfo {
  const body = providerErrorBody(error.data) ?? providerErrorBody(safeParse(error.responseBody));
  const retryAfterMs = parseRetryAfter(error.responseHeaders, now);
  const info: ModelErrorInfo = {
    class: classOf(body?.type, body?.code, error.statusCode),
    message: body?.message ?? error.message,
    ...(error.statusCode === undefined ? {} : { status: error.statusCode }),
    ...(body?.type === undefined ? {} : { providerType: body.type }),
    ...(body?.code === undefined ? {} : { providerCode: body.code }),
    ...(retryAfterMs === undefined ? {} : { retryAfterMs, retryAt: now + retryAfterMs }),
  };
  // A success status whose body never arrived whole: the connection was cut after the headers (a network fault), or
  // the body was closed early and does not parse. Either way the same request can succeed on another attempt.
  if (info.class === 'fatal' && (error.statusCode === undefined || error.statusCode < 300)) {
    const networkCode = findNetworkCode(error.cause);
    if (networkCode) return { ...info, class: 'retryable', networkCode, message: cutMessage(error, networkCode) };
    if (isConnectionTerminated(error.cause)) return { ...info, class: 'retryable', message: cutMessage(error) };
    if (error.statusCode !== undefined && JSONParseError.isInstance(error.cause)) {
      return { ...info, class: 'retryable', message: `${error.message}: the body was cut short or is not JSON` };
    }
  }
  return info;
}

function cutMessage(error: APICallError, networkCode?: string): string {
  const where = error.statusCode === undefined ? 'the connection failed' : 'the connection was cut after the headers';
  return `${error.message}: ${where}${networkCode ? ` (${networkCode})` : ''}`;
}

// undici ends a body whose socket closed early with `TypeError: terminated`.
function isConnectionTerminated(cause: unknown): boolean {
  return isTypeError(cause) && /terminated|fetch failed|socket/i.test(errorMessage(cause));
}

// @ai-sdk/openai-compatible reports a stream that closed before its finish chunk as this error part.
function isStreamEndedEarly(error: unknown): boolean {
  return InvalidResponseDataError.isInstance(error) && /stream ended without a finish reason/i.test(error.message);
}

/**
 * The error for a stream that ended without the provider's completion signal: the connection closed early. Before
 * any content it is retried like any network fault; after content it fails the call as retryable, because a silent
 * retry would send the caller the content a second time.
 */
export function streamCutError(model: { provider: string; modelId: string }, afterContent: boolean): AgencyError {
  const where = `${model.provider}:${model.modelId}`;
  const message = afterContent
    ? `${where} stream ended before its finish, after part of the answer was delivered: the connection was closed ` +
      'early. It was not retried here, so no part of the answer reaches the caller twice; the whole call can be retried.'
    : `${where} stream ended before any content and without a finish: the connection was closed early`;
  return new AgencyError('model_retryable', message, {
    details: {
      class: 'retryable',
      streamCut: afterContent ? 'after-content' : 'before-content',
      provider: model.provider,
      modelId: model.modelId,
    },
  });
}

function classOf(type: string | undefined, code: string | undefined, status: number | undefined): ModelErrorClass {
  for (const key of [code, type]) {
    if (key === undefined) continue;
    if (FATAL_TYPES.has(key)) return 'fatal';
    if (RATE_LIMIT_TYPES.has(key)) return 'rate_limit';
    if (RETRYABLE_TYPES.has(key)) return 'retryable';
  }
  if (status === undefined) return 'fatal';
  if (status === 429) return 'rate_limit';
  if (status === 408 || status === 409 || status === 425 || status >= 500) return 'retryable';
  return 'fatal';
}

type ProviderErrorBody = { type?: string; code?: string | undefined; message?: string };

// OpenAI: {error: {type, code, message}}. Anthropic: {type: 'error', error: {type, message}}.
// Mid-stream: {type: 'error', error: {...}} or the inner object itself.
function providerErrorBody(value: unknown): ProviderErrorBody | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const record = value as Record<string, unknown>;
  const inner =
    typeof record.error === 'object' && record.error !== null ? (record.error as Record<string, unknown>) : record;
  const type = stringField(inner.type);
  const code = stringField(inner.code);
  if ((type === undefined || type === 'error') && code === undefined) return undefined;
  return {
    ...(type === undefined || type === 'error' ? {} : { type }),
    code,
    ...(typeof inner.message === 'string' ? { message: inner.message } : {}),
  };
}

/** Reads `retry-after-ms` or `retry-after` (seconds or an HTTP date) from response headers, in milliseconds. */
export function parseRetryAfter(headers: Record<string, string> | undefined, now = Date.now()): number | undefined {
  if (!headers) return undefined;
  const lower = Object.fromEntries(Object.entries(headers).map(([key, value]) => [key.toLowerCase(), value]));
  const ms = Number(lower['retry-after-ms']);
  if (lower['retry-after-ms'] !== undefined && Number.isFinite(ms) && ms >= 0) return ms;
  const raw = lower['retry-after'];
  if (raw === undefined) return undefined;
  const seconds = Number(raw);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(raw);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

function findNetworkCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && typeof current === 'object' && current !== null; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && NETWORK_CODES.has(code)) return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

function isTypeError(error: unknown): boolean {
  return error instanceof TypeError;
}

function stringField(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function safeParse(text: string | undefined): unknown {
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
