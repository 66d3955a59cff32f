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
  'approval_not_found',
  'approval_invalid',
]);

/** Turns a command's action, which resolves to an exit code, into a commander action that never throws. */
export type WrapAction = <A extends unknown[]>(
  action: (...args: A) => Promise<number>,
) => (...args: A) => Promise<void>;

// The failures of the fleet rather than of a task: no worker, or one that did not answer or answered outside its API.
// `network_failed` and `timeout` count only when a worker raised them (they name its `url`).
const FLEET_CODES = new Set(['no_worker', 'response_invalid', 'http_error']);
const WORKER_CODES = new Set(['network_failed', 'timeout']);

// AgencyError (and the redactor behind it) is loaded only when a command fails, not on every start.
async function exitCodeForError(error: unknown): Promise<number> {
  const code = (error as { exitCode?: number }).exitCode;
  if (code !== undefined) return code;
  const { AgencyError } = await import('../core/errors.ts');
  if (!AgencyError.isInstance(error)) return EXIT.failed;
  if (error.code === 'task_locked') return EXIT.locked;
  if (error.code === 'agent_busy') return EXIT.busy;
  if (FLEET_CODES.has(error.code) || (WORKER_CODES.has(error.code) && typeof error.details?.url === 'string'))
    return EXIT.fleet;
  return USAGE_CODES.has(error.code) ? EXIT.usage : EXIT.failed;
}

/** Makes the wrapper every command's action goes through: errors are printed to `err` and mapped to exit codes. */
export function createWrapAction(err: Output, setExit: (code: number) => void): WrapAction {
  return (action) =>
    async (...args) => {
      try {
        setExit(await action(...args));
      } catch (error) {
        err.write(`agency: ${(error as Error).message}\n`);
        setExit(await exitCodeForError(error));
      }
    };
}
