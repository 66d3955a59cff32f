import type { ErrorCode } from '../core/error-codes.ts';

/**
 * The HTTP API's error codes and statuses: seed 004's table (appendix A), plus the codes of authentication, size
 * limits and conflicts. Every error body is `{ error, message, details }`, with `details.retryable`.
 */
export const API_ERRORS = {
  validation_error: { status: 400, retryable: false },
  unauthorized: { status: 401, retryable: false },
  forbidden: { status: 403, retryable: false },
  not_found: { status: 404, retryable: false },
  method_not_allowed: { status: 405, retryable: false },
  agent_busy: { status: 409, retryable: true },
  task_in_progress: { status: 409, retryable: true },
  already_completed: { status: 409, retryable: false },
  conflict: { status: 409, retryable: false },
  payload_too_large: { status: 413, retryable: false },
  unsupported_media_type: { status: 415, retryable: false },
  rate_limited: { status: 429, retryable: true },
  internal_error: { status: 500, retryable: true },
  claude_error: { status: 502, retryable: true },
  bad_gateway: { status: 502, retryable: true },
  service_unavailable: { status: 503, retryable: true },
  timeout: { status: 504, retryable: true },
} as const;

/** One of {@link API_ERRORS}. */
export type ApiErrorCode = keyof typeof API_ERRORS;

// How each agency error code reaches an HTTP client. Codes not listed are internal_error: an unexpected failure is
// reported without its stack, and logged.
const FROM_AGENCY: Partial<Record<ErrorCode, ApiErrorCode>> = {
  invalid_argument: 'validation_error',
  invalid_config: 'validation_error',
  invalid_model_spec: 'validation_error',
  path_invalid: 'validation_error',
  path_outside_scope: 'validation_error',
  path_symlink_escape: 'validation_error',
  path_read_only: 'validation_error',
  plan_invalid: 'validation_error',
  history_invalid: 'validation_error',
  prompt_invalid: 'validation_error',
  prompt_variable_missing: 'validation_error',
  prompt_not_found: 'not_found',
  path_not_found: 'not_found',
  approval_not_found: 'not_found',
  task_folder_invalid: 'conflict',
  task_not_found: 'not_found',
  task_active: 'task_in_progress',
  task_finished: 'already_completed',
  task_state_conflict: 'conflict',
  payload_too_large: 'payload_too_large',
  unauthorized: 'unauthorized',
  forbidden: 'forbidden',
  approval_invalid: 'conflict',
  task_locked: 'task_in_progress',
  rate_limited: 'rate_limited',
  model_rate_limit: 'rate_limited',
  timeout: 'timeout',
  agent_busy: 'agent_busy',
  worker_unavailable: 'service_unavailable',
  network_failed: 'service_unavailable',
  worker_failed: 'bad_gateway',
  no_worker: 'not_found',
  worker_lost: 'bad_gateway',
  workspace_locked: 'task_in_progress',
  already_exists: 'conflict',
  entry_not_found: 'not_found',
};

/** The API code an agency error code is reported with. */
export function apiCodeOf(code: ErrorCode): ApiErrorCode {
  return FROM_AGENCY[code] ?? 'internal_error';
}

/** An error body (`{ error, message, details }`) with the code's status, and `details.retryable` from the table. */
export function errorBody(code: ApiErrorCode, message: string, details: Record<string, unknown>) {
  const { status, retryable } = API_ERRORS[code];
  return { status, body: { error: code, message, details: { ...details, retryable } } };
}
