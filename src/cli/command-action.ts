import { EXIT } from './exit-codes.ts';
import type { Output } from './render.ts';

const USAGE_CODES = new Set([
  'invalid_argument',
  'invalid_config',
  'invalid_model_spec',
  'missing_api_key',
  'task_folder_invalid',
  'state_corrupt',
  'cassette_not_found',
  'cassette_corrupt',
  'prompt_not_found',
  'prompt_invalid',
  'approval_not_found',
  'approval_invalid',
  'memory_store_invalid',
  // From a server (--server): the wrong token or address, an unknown task, a task not in a state for it.
  'unauthorized',
  'forbidden',
  'task_not_found',
  'task_state_conflict',
  'payload_too_large',
]);

/** Turns a command's action, which resolves to an exit code, into a commander action that never throws. */
export type WrapAction = <A extends unknown[]>(
  action: (...args: A) => Promise<number>,
) => (...args: A) => Promise<void>;

// The failures of the fleet rather than of a task, when a worker raised them (they name its `url`): no answer, or an
// answer outside its API. `no_worker` always is one.
const FLEET_CODES = new Set(['response_invalid', 'http_error']);
const WORKER_CODES = new Set(['network_failed', 'timeout']);

// AgencyError (and the redactor behind it) is loaded only when a command fails, not on every start.
async function exitCodeForError(error: unknown): Promise<number> {
  const code = (error as { exitCode?: number }).exitCode;
  if (code !== undefined) return code;
  const { AgencyError } = await import('../core/errors.ts');
  if (!AgencyError.isInstance(error)) return EXIT.failed;
  // A task the server is running is held as a local run holds its lock.
  if (error.code === 'task_locked' || error.code === 'task_active') return EXIT.locked;
  if (error.code === 'agent_busy') return EXIT.busy;
  // A worker's failures name its url: they are the fleet's, not the task's.
  const fromWorker = typeof error.details?.url === 'string';
  if (
    error.code === 'no_worker' ||
    error.code === 'worker_lost' ||
    (fromWorker && (FLEET_CODES.has(error.code) || WORKER_CODES.has(error.code)))
  )
    return EXIT.fleet;
  if (USAGE_CODES.has(error.code)) return EXIT.usage;
  const status = error.details?.status;
  return error.code === 'http_error' && typeof status === 'number' && status < 500 ? EXIT.usage : EXIT.failed;
}

// A server's refusal says what it was: `… (HTTP 404 not_found)`. A worker's names itself and its status already.
function messageOf(error: unknown): string {
  const message = (error as Error).message;
  const details = (error as { details?: { status?: unknown; error?: unknown; url?: unknown } }).details;
  return typeof details?.status === 'number' && typeof details.error === 'string' && details.url === undefined
    ? `${message} (HTTP ${details.status} ${details.error})`
    : message;
}

/** Makes the wrapper every command's action goes through: errors are printed to `err` and mapped to exit codes. */
export function createWrapAction(err: Output, setExit: (code: number) => void): WrapAction {
  return (action) =>
    async (...args) => {
      try {
        setExit(await action(...args));
      } catch (error) {
        err.write(`agency: ${messageOf(error)}\n`);
        setExit(await exitCodeForError(error));
      }
    };
}
