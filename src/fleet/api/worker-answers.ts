// The answers of the worker endpoints whose shape worker-schemas.ts leaves open, as seed 004 gives them (appendix A,
// phase 2.4). Each schema is the least a director relies on; other fields pass through, so a worker may answer with
// the whole task where the seed shows a part of it.
import { z } from 'zod';
import { sessionIdSchema, WORKER_TASK_STATES, workerTaskIdSchema } from './worker-schemas.ts';

const state = z.enum(WORKER_TASK_STATES);

/** `POST /task/:id/cancel` → 200 `{task_id, state, message}`: `cancelling` until the process is gone. */
export const cancelAnswerSchema = z
  .object({ task_id: workerTaskIdSchema, state, message: z.string().optional() })
  .passthrough();

/** `POST /task/:id/continue` → `{task_id, state: "working"}`: the same task takes the next prompt of its session. */
export const continueAnswerSchema = z.object({ task_id: workerTaskIdSchema, state }).passthrough();

/** `POST /task/:id/end` → `{task_id, state: "completed", output}`: the session is over. */
export const endAnswerSchema = z
  .object({ task_id: workerTaskIdSchema, state, output: z.string().nullable().optional() })
  .passthrough();

/** `POST /shutdown` → 202 `{message, drain_timeout}`. */
export const shutdownAnswerSchema = z
  .object({ message: z.string(), drain_timeout: z.number().nonnegative() })
  .passthrough();

/** One task a worker holds, as `GET /tasks` lists it. */
export const taskSummarySchema = z
  .object({ task_id: workerTaskIdSchema, state, session_id: sessionIdSchema })
  .passthrough();

/** `GET /tasks`: `{items: [...]}` as `agency worker` answers (`taskListSchema`), `{tasks: [...]}`, or the bare list. */
export const tasksAnswerSchema = z
  .union([
    z.array(taskSummarySchema),
    z.object({ items: z.array(taskSummarySchema) }).passthrough(),
    z.object({ tasks: z.array(taskSummarySchema) }).passthrough(),
  ])
  .transform((answer): TaskSummary[] => {
    if (Array.isArray(answer)) return answer;
    return 'items' in answer ? (answer.items as TaskSummary[]) : answer.tasks;
  });

/** What a cancel answers. */
export type CancelAnswer = z.infer<typeof cancelAnswerSchema>;
/** What a continue answers. */
export type ContinueAnswer = z.infer<typeof continueAnswerSchema>;
/** What an end answers. */
export type EndAnswer = z.infer<typeof endAnswerSchema>;
/** What a shutdown answers. */
export type ShutdownAnswer = z.infer<typeof shutdownAnswerSchema>;
/** A task in `GET /tasks`. */
export type TaskSummary = z.infer<typeof taskSummarySchema>;
