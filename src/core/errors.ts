import { ERROR_CODES, type ErrorCode, isErrorCode } from './error-codes.ts';
import { defaultRedactor } from './redact.ts';

const MARKER = Symbol.for('agency.error');

/** Options for {@link AgencyError}. */
export type AgencyErrorOptions = {
  /** The underlying failure. */
  cause?: unknown;
  /** Overrides the code's default retryability. */
  retryable?: boolean;
  /** Structured facts about the failure: a file, a field, a call index. Never secrets. */
  details?: Record<string, unknown>;
};

/**
 * The one error class agency throws. It carries a stable `code` from {@link ERROR_CODES}, whether a retry can
 * help, and the underlying `cause`.
 *
 * @example
 * try { await resolveModel('gpt-4o') } catch (e) { if (AgencyError.isInstance(e)) console.log(e.code) }
 */
export class AgencyError extends Error {
  override readonly name = 'AgencyError';
  readonly code: ErrorCode;
  readonly retryable: boolean;
  readonly details: Record<string, unknown> | undefined;
  readonly [MARKER] = true;

  constructor(code: ErrorCode, message: string, options: AgencyErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.retryable = options.retryable ?? ERROR_CODES[code].retryable;
    this.details = options.details;
  }

  /** Unlike `instanceof`, this works across copies of the package and across realms. */
  static isInstance(value: unknown): value is AgencyError {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[MARKER] === true;
  }

  /** True when `value` is an AgencyError with the given code. */
  static hasCode(value: unknown, code: ErrorCode): value is AgencyError {
    return AgencyError.isInstance(value) && value.code === code;
  }

  /**
   * Turns any thrown value into an AgencyError, keeping it as the cause. An AgencyError passes through unchanged.
   * @default code 'internal'
   */
  static from(value: unknown, code: ErrorCode = 'internal'): AgencyError {
    if (AgencyError.isInstance(value)) return value;
    if (isAbortError(value)) return new AgencyError('aborted', 'The operation was aborted.', { cause: value });
    return new AgencyError(code, errorMessage(value), { cause: value });
  }

  /**
   * A JSON-safe view: code, message, retryable and details, with secrets redacted by the default redactor (this is
   * what `JSON.stringify` writes, so it is what ends up in files and logs).
   */
  toJSON(): { name: string; code: ErrorCode; message: string; retryable: boolean; details?: Record<string, unknown> } {
    return defaultRedactor.redact({
      name: this.name,
      code: this.code,
      message: this.message,
      retryable: this.retryable,
      ...(this.details === undefined ? {} : { details: this.details }),
    });
  }
}

/** The message of any thrown value. */
export function errorMessage(value: unknown): string {
  if (value instanceof Error) return value.message;
  if (typeof value === 'string') return value;
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

/** True for the errors that `AbortSignal` and `fetch` raise on abort. */
export function isAbortError(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const name = (value as { name?: unknown }).name;
  return name === 'AbortError' || (AgencyError.isInstance(value) && value.code === 'aborted');
}

/** Parses an error code from outside (an HTTP body, a file); unknown codes become 'internal'. */
export function toErrorCode(value: unknown): ErrorCode {
  return isErrorCode(value) ? value : 'internal';
}
