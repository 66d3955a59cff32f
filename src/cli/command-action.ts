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

// AgencyError (and the redactor behind it) is loaded only when a command fails, not on every start.
async function exitCodeForError(error: unknown): Promise<number> {
  const code = (error as { exitCode?: number }).exitCode;
  const { AgencyError } = await import('../core/errors.ts');
  const agency = AgencyError.isInstance(error) ? error : undefined;
  return (
    code ??
    (agency?.code === 'task_locked' ? EXIT.locked : agency && USAGE_CODES.has(agency.code) ? EXIT.usage : EXIT.failed)
  );
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
