/**
 * Every error code agency can raise, in one table. `retryable` is the default for errors of that code: a caller may
 * retry the same operation and expect it to succeed. Only the server maps codes to HTTP statuses.
 */
export const ERROR_CODES = {
  // Input and configuration
  invalid_argument: { retryable: false, summary: 'A value passed in is malformed.' },
  invalid_config: { retryable: false, summary: 'A configuration file or option is invalid.' },
  invalid_model_spec: { retryable: false, summary: 'A model spec string cannot be parsed.' },
  missing_api_key: { retryable: false, summary: 'A provider API key is not set.' },
  internal: { retryable: false, summary: 'An unexpected failure inside agency.' },
  aborted: { retryable: false, summary: 'The operation was cancelled by its caller.' },
  timeout: { retryable: true, summary: 'The operation did not finish in time.' },

  // Model calls
  model_rate_limit: { retryable: true, summary: 'The provider is rate limiting; retry after a pause.' },
  model_retryable: { retryable: true, summary: 'A transient provider or network failure.' },
  model_fatal: { retryable: false, summary: 'The provider rejected the request; retrying will not help.' },
  model_timeout: { retryable: true, summary: 'The model call exceeded its timeout.' },
  no_capable_model: { retryable: false, summary: 'No model in the fallback chain has the needed capabilities.' },
  script_exhausted: { retryable: false, summary: 'A scripted model was called more times than it has replies.' },

  // Cassettes
  cassette_not_found: { retryable: false, summary: 'The cassette file does not exist.' },
  cassette_corrupt: { retryable: false, summary: 'A cassette line is not a valid record.' },
  cassette_mismatch: { retryable: false, summary: 'A request differs from the recorded one.' },
  cassette_exhausted: { retryable: false, summary: 'More calls were made than the cassette recorded.' },

  // Tools
  tool_not_found: { retryable: false, summary: 'The model called a tool that does not exist.' },
  tool_invalid_input: { retryable: false, summary: 'Tool arguments failed validation.' },
  tool_failed: { retryable: false, summary: 'A tool threw while running.' },
  tool_timeout: { retryable: true, summary: 'A tool exceeded its timeout.' },
  tool_definition_invalid: { retryable: false, summary: 'A tool definition is malformed.' },

  // Agent runs
  max_iterations: { retryable: false, summary: 'The agent reached its iteration cap.' },
  halted: { retryable: false, summary: 'A processor halted the run with a canned answer.' },
  suspension_used: { retryable: false, summary: 'A suspended run was already resumed or released.' },
  suspension_expired: { retryable: false, summary: 'A suspended run outlived its time to live.' },
  suspend_budget_exceeded: { retryable: false, summary: 'Too many suspended runs, or too many bytes held by them.' },
  suspension_invalid: { retryable: false, summary: 'A serialized suspended run is malformed or for another agent.' },
  attachment_limit: { retryable: false, summary: 'The attachment count or byte cap was reached.' },
  structured_output_invalid: {
    retryable: false,
    summary: "The model's answer did not match the requested schema, even after its repair turns.",
  },

  // Governed tasks
  journal_not_durable: {
    retryable: false,
    summary: 'A journal write or fsync failed; the run cannot continue safely.',
  },
  journal_corrupt: { retryable: false, summary: 'The event journal has a malformed line that is not a torn tail.' },
  state_corrupt: {
    retryable: false,
    summary: "A state file (a task's progress/state.json or spec.json, a director's state.json) is malformed.",
  },
  file_write_failed: { retryable: false, summary: 'A file could not be written and fsynced (ENOSPC, EIO…).' },
  task_folder_invalid: { retryable: false, summary: 'The task root is missing, or is not a task folder.' },
  task_locked: { retryable: false, summary: 'Another run is active on the same task root.' },
  plan_invalid: { retryable: false, summary: 'The model did not produce a valid plan.' },
  plan_tampered: { retryable: false, summary: 'The plan changed after it was approved.' },
  approval_invalid: { retryable: false, summary: 'An approval decision file is malformed, stale or conflicting.' },
  approval_not_found: { retryable: false, summary: 'No approval request has that id.' },
  budget_exceeded: { retryable: false, summary: 'A run budget was exhausted.' },

  // Guards: paths, network, sandbox
  path_outside_scope: { retryable: false, summary: 'A path resolves outside the allowed roots.' },
  path_invalid: { retryable: false, summary: 'A path is malformed (absolute, NUL byte, empty, too long).' },
  path_symlink_escape: { retryable: false, summary: 'A symlink points outside the allowed roots.' },
  path_not_found: { retryable: false, summary: 'The path does not exist.' },
  path_read_only: { retryable: false, summary: 'A write resolves to a read-only part of a root.' },
  network_blocked: { retryable: false, summary: 'The destination address is not allowed.' },
  network_invalid_url: { retryable: false, summary: 'The URL is malformed or uses a disallowed scheme.' },
  network_too_many_redirects: { retryable: false, summary: 'The redirect limit was exceeded.' },
  network_response_too_large: { retryable: false, summary: 'The response exceeded its size limit.' },
  network_failed: { retryable: true, summary: 'The network request failed.' },
  sandbox_unavailable: { retryable: false, summary: 'The sandbox cannot run here (bwrap missing or no namespaces).' },
  sandbox_failed: { retryable: false, summary: 'The sandboxed command could not be started.' },

  // Policy and credentials
  policy_denied: { retryable: false, summary: 'Policy denied the action.' },
  rate_limited: { retryable: true, summary: 'A per-tool rate limit was hit.' },
  credential_unavailable: { retryable: false, summary: 'A credential could not be loaded.' },

  // MCP (additions)
  mcp_unavailable: { retryable: true, summary: 'The MCP server is disconnected, unreachable or failed to start.' },

  // Memory (additions)
  history_invalid: { retryable: false, summary: 'A seeded history file (task/history.jsonl or .md) is malformed.' },
  memory_store_unavailable: {
    retryable: true,
    summary: 'A memory store cannot be reached or opened (server down, file locked past its busy timeout).',
  },
  memory_store_invalid: {
    retryable: false,
    summary: 'A memory store holds a schema this agency does not know (written by a newer one), or is damaged.',
  },

  // Prompt templates (additions)
  prompt_not_found: { retryable: false, summary: 'No prompt template has that id, or not that version.' },
  prompt_invalid: {
    retryable: false,
    summary: 'A prompt template, or a file or row a prompt store reads back, is malformed.',
  },
  prompt_variable_missing: { retryable: false, summary: 'A prompt was rendered without a variable its text uses.' },

  // Built-in tools (additions)
  content_not_text: { retryable: false, summary: 'A file or response is binary where the tool returns text only.' },
  limit_exceeded: { retryable: false, summary: "A built-in tool's size or count limit was exceeded." },
  file_exists: { retryable: false, summary: 'The file already exists and the write was asked to create it.' },
  sql_refused: {
    retryable: false,
    summary: 'A SQL statement was refused: literals instead of parameters, several statements, or a write.',
  },
  schema_invalid: { retryable: false, summary: 'A JSON Schema cannot be compiled.' },

  // Serving tasks (additions)
  task_not_found: { retryable: false, summary: 'No task has that id.' },
  task_active: { retryable: true, summary: 'The task is queued or running; wait for it, or stop it first.' },
  task_finished: { retryable: false, summary: 'The task finished for good; start a new one.' },
  task_state_conflict: { retryable: false, summary: 'The task is not in a state that allows this.' },
  payload_too_large: { retryable: false, summary: 'A request body, upload or file is over its size limit.' },
  unauthorized: { retryable: false, summary: 'The request carries no valid credentials.' },
  forbidden: { retryable: false, summary: 'The request is not allowed from where it came.' },

  // Calling a server or a worker (additions)
  http_error: {
    retryable: false,
    summary: 'The server answered with an error no other code names; details.status and details.error say which.',
  },
  response_invalid: {
    retryable: false,
    summary: "An answer does not match the API's schemas: malformed JSON, or a shape of another version.",
  },

  // Fleet (additions)
  agent_busy: { retryable: true, summary: 'The worker is running a task; try another worker, or wait.' },
  worker_unavailable: {
    retryable: true,
    summary: 'The worker is starting (its config and executor are being checked) or shutting down.',
  },
  no_worker: { retryable: false, summary: 'No worker was found: none discovered, or none by that name or URL.' },
  worker_lost: {
    retryable: false,
    summary: 'The worker that holds the task is gone (stopped, or no heartbeat for too long); start a new task.',
  },
  worker_failed: {
    retryable: true,
    summary: 'A worker did not answer, answered outside its API, or failed on its side (a 5xx, a refused token).',
  },

  // Directors
  workspace_locked: {
    retryable: true,
    summary: 'Another task holds the workdir (its workspace lock); wait for it to finish.',
  },
  already_exists: { retryable: false, summary: 'Something by that name exists already; pick another name.' },
  entry_not_found: { retryable: false, summary: "No entry of a director's history has that id." },

  // The GitHub director
  github_rate_limit: {
    retryable: true,
    summary: 'GitHub is rate limiting the token; retry after the reset time it sent (details.retryAt).',
  },
  github_retryable: {
    retryable: true,
    summary: 'GitHub failed or did not answer (a 5xx, the network, a malformed answer); retry with backoff.',
  },
  github_fatal: {
    retryable: false,
    summary: 'GitHub refused the request (401, 403, 404, 422…); retrying the same request will not help.',
  },
  worker_task_failed: {
    retryable: false,
    summary: 'A task handed to a worker failed, was cancelled or its worker was lost; details.type says which.',
  },
  git_failed: { retryable: false, summary: 'A git command failed; details.command and details.stderr say which.' },
} as const satisfies Record<string, { retryable: boolean; summary: string }>;

/** A stable string identifying a kind of failure. */
export type ErrorCode = keyof typeof ERROR_CODES;

/** True when `code` is one of agency's error codes. */
export function isErrorCode(code: unknown): code is ErrorCode {
  return typeof code === 'string' && Object.hasOwn(ERROR_CODES, code);
}
