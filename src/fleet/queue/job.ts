// The payload of a task's pg-boss job, checked by the worker before anything runs: one that fails is dead-lettered
// with the reason, never retried.
import { z } from 'zod';
import { EXECUTOR_KINDS, sessionIdSchema, taskRequestSchema, workerTaskIdSchema } from '../api/worker-schemas.ts';

/** A task's job: its id (also the job's `singletonKey`), executor, request, and what to do when its worker is lost. */
export const taskJobSchema = z
  .object({
    task_id: workerTaskIdSchema,
    executor: z.enum(EXECUTOR_KINDS),
    request: taskRequestSchema.extend({ session_id: sessionIdSchema }),
    /** Run the task again on another worker when its worker is lost (an idempotent task); else it fails. */
    rerun_on_loss: z.boolean(),
  })
  .strict();

/** A task's job payload. */
export type TaskJob = z.infer<typeof taskJobSchema>;

/** Why a payload is not a task's job, field by field, or undefined when it is one. */
export function jobProblem(data: unknown): string | undefined {
  const parsed = taskJobSchema.safeParse(data);
  if (parsed.success) return undefined;
  return parsed.error.issues.map((issue) => `${issue.path.join('.') || '(payload)'}: ${issue.message}`).join('; ');
}
