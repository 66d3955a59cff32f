import type { TaskErrorType } from '../../api/worker-schemas.ts';
import { classifyErrorText } from '../cli/cli-result.ts';

/** The fields of Claude Code's final `result` line the executor reads. */
export type ClaudeResultLine = {
  type: 'result';
  subtype: string;
  is_error?: boolean;
  result?: string;
  errors?: string[];
  session_id?: string;
  num_turns?: number;
  total_cost_usd?: number;
  terminal_reason?: string;
  api_error_status?: number | null;
  api_error_type?: string;
  api_error?: string;
  usage?: {
    input_tokens?: number;
    output_tokens?: number;
    cache_creation_input_tokens?: number;
    cache_read_input_tokens?: number;
  };
  permission_denials?: Array<{ tool_name?: string }>;
};

// The Messages API's error types (https://docs.anthropic.com/en/api/errors) and what a task fails with.
const API_ERROR_TYPES: Record<string, TaskErrorType> = {
  rate_limit_error: 'rate_limit',
  overloaded_error: 'rate_limit',
  authentication_error: 'invalid_api_key',
  permission_error: 'invalid_api_key',
  timeout_error: 'network',
  api_error: 'network',
};

/**
 * Why a failed `result` line failed: the API's status and error type when Claude Code passes them on, its
 * `terminal_reason` (`prompt_too_long`, `max_turns`), a connection failure, else the wording of its message (seed 004
 * appendix B's patterns), else `executor_error`.
 */
export function classifyClaudeResult(result: ClaudeResultLine): { type: TaskErrorType; message: string } {
  const message = messageOf(result);
  return { type: typeOf(result, message), message };
}

function typeOf(result: ClaudeResultLine, message: string): TaskErrorType {
  const status = result.api_error_status;
  if (status === 429 || status === 529) return 'rate_limit';
  if (status === 401 || status === 403) return 'invalid_api_key';
  const byType = result.api_error_type ? API_ERROR_TYPES[result.api_error_type] : undefined;
  if (byType) return byType;
  if (result.terminal_reason === 'prompt_too_long') return 'context_window';
  if (result.subtype === 'error_max_turns' || result.terminal_reason === 'max_turns') return 'executor_error';
  if (result.api_error === 'connection_failed' || (typeof status === 'number' && status >= 500)) return 'network';
  return classifyErrorText(message) ?? 'executor_error';
}

function messageOf(result: ClaudeResultLine): string {
  const detail = result.errors?.length ? result.errors.join('; ') : result.result;
  const text = detail && detail.trim() !== '' ? detail : `Claude Code ended with ${result.subtype}`;
  const status = typeof result.api_error_status === 'number' ? ` (HTTP ${result.api_error_status})` : '';
  return `${text}${status}`;
}
