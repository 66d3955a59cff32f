// What a scheduler keeps in `state.json`: the last slot handled per entry, and the runs in flight.
import { z } from 'zod';
import { directorEntryIdSchema, dispatchedTaskSchema } from '../../api/director-schemas.ts';
import { sessionIdSchema } from '../../api/worker-schemas.ts';

/** A run of one slot: recorded before anything is handed out, removed once its outcome is in the history. */
export const scheduledRunSchema = z
  .object({
    /** Its history entry: `<entry>@<slot>`. */
    id: directorEntryIdSchema,
    entry: z.string(),
    slot: z.iso.datetime(),
    started_at: z.iso.datetime(),
    prompt: z.string(),
    workdir: z.string(),
    model: z.string().nullable(),
    timeout_ms: z.number().int().positive().nullable(),
    /** Labels its worker must have besides the director's (queue mode). */
    labels: z.array(z.string()).optional(),
    /** Waiting behind its entry's previous run (`overlap: queue`). */
    queued: z.boolean(),
    /** The task on a worker, once handed out. */
    task: dispatchedTaskSchema.nullable(),
    /**
     * The session of the task being handed out, recorded before the dispatch: a restart that finds it without a
     * `task` looks for that session's task on the workers before handing the run out again.
     */
    placing: sessionIdSchema.nullable().default(null),
  })
  .strict();

/** The scheduler's part of `state.json`. */
export const schedulerStateSchema = z
  .object({
    /** Per entry, the latest slot handled (run, skipped or missed): no slot is handled twice. */
    last_slots: z.record(z.string(), z.iso.datetime()),
    runs: z.array(scheduledRunSchema),
  })
  .strict();

/** A run in `state.json`. */
export type ScheduledRun = z.infer<typeof scheduledRunSchema>;
/** The scheduler's state. */
export type SchedulerState = z.infer<typeof schedulerStateSchema>;
