// What the manager's executor hands the sandboxed child that runs one turn (`agency manager-turn`), on its stdin.
import { z } from 'zod';
import { AgencyError } from '../../../core/errors.ts';

/** One turn of a manager's session, as its child process reads it. */
export const managerJobSchema = z
  .object({
    version: z.literal(1),
    /** The manager director's `config.yaml`: the child reads its settings again. */
    config_file: z.string().startsWith('/'),
    /** The turn's task root (`<session dir>/turn-<n>`), made by the executor before the child starts. */
    root: z.string().startsWith('/'),
    /** Resume the run the root's journal holds, instead of starting it. */
    resumed: z.boolean(),
    session_id: z.string().min(1),
    /** The model spec the run thinks with. */
    model: z.string().min(1),
    /** The operator config file the executor's rules came from (bound read-only); null: none, the defaults. */
    operator_config: z.string().startsWith('/').nullable(),
  })
  .strict();

/** One turn of a manager's session. */
export type ManagerJob = z.infer<typeof managerJobSchema>;

/**
 * The job in `text` (the child's stdin).
 *
 * @throws AgencyError `invalid_argument` naming the field, for input that is not a job.
 */
export function parseManagerJob(text: string): ManagerJob {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new AgencyError('invalid_argument', 'agency manager-turn reads a JSON job on stdin; this is not JSON.');
  }
  const parsed = managerJobSchema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const field = issue?.path.length ? ` "${issue.path.join('.')}"` : '';
  throw new AgencyError(
    'invalid_argument',
    `agency manager-turn: the job's${field} ${issue?.message ?? 'is invalid'}; it is written by the manager's ` +
      'executor, not by hand.',
  );
}
