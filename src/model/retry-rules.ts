import type { LanguageModelV4 } from '@ai-sdk/provider';
import { backoffDelay } from '../core/backoff.ts';
import { AgencyError } from '../core/errors.ts';
import { modelName } from './capabilities.ts';
import type { ModelErrorClass } from './classify-error.ts';

/** Timeouts and retries for model calls. */
export type CallPolicy = {
  /** Per attempt, including reading the whole stream; 0 disables. @default 120000 */
  timeoutMs?: number | undefined;
  /** Retries per model after the first attempt, for rate limits and transient failures. @default 2 */
  maxRetries?: number | undefined;
  /** The first backoff delay; each retry doubles it. @default 1000 */
  initialDelayMs?: number | undefined;
  /** The largest backoff delay. @default 30000 */
  maxDelayMs?: number | undefined;
  /**
   * The longest `retry-after` waited for when the call has no time limit (`timeLeftMs`). A longer one moves on to
   * the next model in the chain; with none left, the call fails with the server's retry-after in its message.
   * @default 60000
   */
  maxRetryAfterMs?: number | undefined;
  /**
   * How much longer the caller can wait, in milliseconds, asked before each wait: for example what is left of a
   * run's wall-clock budget (the governed runner passes it). A `retry-after` that ends within it is waited for, even
   * above `maxRetryAfterMs` when no other model can take over; one that ends after it fails the call at once.
   * `undefined` from the function means no limit.
   * @default no limit
   * @example
   * { timeLeftMs: () => deadline - Date.now() }
   */
  timeLeftMs?: (() => number | undefined) | undefined;
};

/** A retry, or a move to the next model in the chain. */
export type RetryEvent = {
  model: string;
  attempt: number;
  errorClass: ModelErrorClass | 'timeout';
  code: string;
  message: string;
  /** How long we wait before the next attempt. */
  delayMs: number;
  /** Set when the next attempt goes to another model in the chain. */
  fallbackTo?: string;
};

/** The policy with its defaults filled in, and what waits between attempts. */
export type Retrying = {
  policy: { [K in Exclude<keyof CallPolicy, 'timeLeftMs'>]-?: number } & Pick<CallPolicy, 'timeLeftMs'>;
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  random: () => number;
  now: () => number;
};

/** What to do after a failed attempt: retry the same model after `delayMs`, or give up on it with `error`. */
export type NextStep = { retry: boolean; delayMs: number; error: AgencyError };

export function resolvePolicy(options: CallPolicy): Retrying['policy'] {
  return {
    timeoutMs: options.timeoutMs ?? 120_000,
    maxRetries: options.maxRetries ?? 2,
    initialDelayMs: options.initialDelayMs ?? 1000,
    maxDelayMs: options.maxDelayMs ?? 30_000,
    maxRetryAfterMs: options.maxRetryAfterMs ?? 60_000,
    timeLeftMs: options.timeLeftMs,
  };
}

/**
 * Whether a failed attempt is retried on the same model, and after how long: `retry-after` when the provider sent
 * one we may wait for, otherwise exponential backoff with jitter. A `retry-after` over `maxRetryAfterMs` hands over
 * to the next model when there is one; without one it is waited for only within `timeLeftMs`. A `retry-after` we do
 * not wait for fails the call with a message that gives it.
 */
export function nextStep(error: AgencyError, attempt: number, retrying: Retrying, hasFallback: boolean): NextStep {
  const { policy } = retrying;
  if (!error.retryable || attempt > policy.maxRetries) return { retry: false, delayMs: 0, error };
  const retryAfterMs = error.details?.retryAfterMs as number | undefined;
  if (retryAfterMs === undefined) return { retry: true, delayMs: backoff(attempt, retrying), error };
  const timeLeft = policy.timeLeftMs?.();
  if (timeLeft !== undefined && retryAfterMs >= timeLeft) {
    const why = `only ${seconds(timeLeft)} s are left of the caller's time limit (timeLeftMs, e.g. a run's wall-clock budget)`;
    return { retry: false, delayMs: 0, error: hasFallback ? error : retryAfterError(error, retrying, why) };
  }
  if (retryAfterMs <= policy.maxRetryAfterMs || (timeLeft !== undefined && !hasFallback)) {
    return { retry: true, delayMs: retryAfterMs, error };
  }
  const why =
    `that is longer than maxRetryAfterMs (${seconds(policy.maxRetryAfterMs)} s). Raise modelPolicy.maxRetryAfterMs, ` +
    'give the call a time limit (modelPolicy.timeLeftMs, or a run wall-clock budget) to wait, or add a fallback model';
  return { retry: false, delayMs: 0, error: hasFallback ? error : retryAfterError(error, retrying, why) };
}

function retryAfterError(error: AgencyError, { now }: Retrying, why: string): AgencyError {
  const retryAfterMs = error.details?.retryAfterMs as number;
  const retryAt = (error.details?.retryAt as number | undefined) ?? now() + retryAfterMs;
  const asked = `The server asked to retry after ${seconds(retryAfterMs)} s (retry-after, at ${new Date(retryAt).toISOString()})`;
  return new AgencyError(error.code, `${error.message}. ${asked}; ${why}.`, {
    cause: error.cause ?? error,
    retryable: error.retryable,
    details: { ...error.details, retryAt },
  });
}

function seconds(ms: number): number {
  return Math.round(ms / 100) / 10;
}

function backoff(attempt: number, { policy, random }: Retrying): number {
  return backoffDelay(attempt, { initialMs: policy.initialDelayMs, maxMs: policy.maxDelayMs, random });
}

export function retryEvent(
  error: AgencyError,
  model: LanguageModelV4,
  attempt: number,
  delayMs: number,
  next: LanguageModelV4,
): RetryEvent {
  return {
    model: modelName(model),
    attempt,
    errorClass: error.code === 'model_timeout' ? 'timeout' : errorClassOf(error),
    code: error.code,
    message: error.message,
    delayMs,
    ...(next === model ? {} : { fallbackTo: modelName(next) }),
  };
}

function errorClassOf(error: AgencyError): ModelErrorClass {
  if (error.code === 'model_rate_limit') return 'rate_limit';
  return error.retryable ? 'retryable' : 'fatal';
}

/** The last error of a call, with how many attempts it took and every retry, in its message and details. */
export function withAttempts(error: AgencyError | undefined, attempts: number, retries: RetryEvent[]): AgencyError {
  const base = error ?? new AgencyError('internal', 'The model call failed without an error');
  return new AgencyError(base.code, attempts > 1 ? `${base.message} (after ${attempts} attempts)` : base.message, {
    cause: base.cause ?? base,
    retryable: base.retryable,
    details: { ...base.details, attempts, retries },
  });
}
