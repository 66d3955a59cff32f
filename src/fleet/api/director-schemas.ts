// The wire contract of a director daemon (`agency director`): the universal `/status` (the worker's
// `statusSchema`, with `type: "director"`) and `/shutdown`, and the director endpoints of seed 004 ("API Design"):
// `GET /history`, `GET /history/:id` and `GET /agents`. Plain zod, as `worker-schemas.ts`.
import { z } from 'zod';
import { TASK_ERROR_TYPES, WORKER_TASK_STATES, sessionIdSchema, workerTaskIdSchema } from './worker-schemas.ts';

/** Where one piece of a director's work is: waiting (for a worker or a lock), running on a worker, or over. */
export const DIRECTOR_ENTRY_STATES = ['waiting', 'running', 'completed', 'failed', 'skipped', 'cancelled'] as const;

/** The entry states a piece of work no longer leaves. */
export const FINAL_DIRECTOR_ENTRY_STATES = ['completed', 'failed', 'skipped', 'cancelled'] as const;

/** A history entry's id: its file name under `history/`, so no `/` and no leading dot. */
export const directorEntryIdSchema = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._:@+-]{0,199}$/, 'must be letters, digits and . _ : @ + - (up to 200)');

const logLine = z.object({ time: z.iso.datetime(), level: z.string(), message: z.string() }).strict();

/** A task a director handed to a worker: which worker, and the ids to find it again. */
export const dispatchedTaskSchema = z
  .object({
    worker: z.object({ name: z.string(), url: z.string() }).strict(),
    task_id: workerTaskIdSchema,
    session_id: sessionIdSchema,
  })
  .strict();

/** How a task ended, as the director saw it: the worker's final (or idle) state, or `lost` with its worker. */
export const entryResultSchema = z
  .object({
    state: z.enum([...WORKER_TASK_STATES, 'lost']),
    output: z.string().nullable(),
    error: z
      .object({ type: z.enum(TASK_ERROR_TYPES), message: z.string() })
      .strict()
      .nullable(),
    cost_usd: z.number().nonnegative().nullable(),
    duration_seconds: z.number().nonnegative().nullable(),
  })
  .strict();

/**
 * One piece of a director's work, as `GET /history/:id` shows it and `history/<id>.json` keeps it: a scheduled run,
 * an issue worked on, a delegated goal. `details` is the kind's own (the schedule entry and slot, the issue number).
 */
export const directorEntrySchema = z
  .object({
    id: directorEntryIdSchema,
    /** What this is, in the kind's words: `scheduled_run`, `issue`, … */
    kind: z.string().min(1).max(100),
    /** One line: `daily-cleanup at 2026-11-25T02:00:00Z`. */
    title: z.string().max(500),
    state: z.enum(DIRECTOR_ENTRY_STATES),
    started_at: z.iso.datetime(),
    finished_at: z.iso.datetime().nullable(),
    /** The task on a worker, once handed out. */
    task: dispatchedTaskSchema.nullable(),
    result: entryResultSchema.nullable(),
    details: z.record(z.string(), z.unknown()),
    /** What happened, in order: waits, retries, the dispatch, the outcome (the last 200 lines). */
    log: z.array(logLine),
  })
  .strict();

/** `GET /history?page&limit`: entries newest first, without their log, outputs cut to 200 characters. */
export const directorHistoryPageSchema = z
  .object({
    items: z.array(directorEntrySchema.omit({ log: true }).strict()),
    page: z.number().int().positive(),
    limit: z.number().int().positive(),
    total: z.number().int().nonnegative(),
  })
  .strict();

/** One worker a director sees, as `GET /agents` lists it: what discovery knows of it and how its polls went. */
export const directorAgentSchema = z
  .object({
    url: z.string(),
    name: z.string().nullable(),
    state: z.string().nullable(),
    health: z.enum(['green', 'yellow', 'red']),
    failures: z.number().int().nonnegative(),
    error: z.string().nullable(),
    current_task: z.string().nullable(),
    uptime_seconds: z.number().int().nonnegative().nullable(),
    seen_at: z.iso.datetime().nullable(),
  })
  .strict();

/** `GET /agents`. */
export const directorAgentsSchema = z.object({ items: z.array(directorAgentSchema) }).strict();

/** A director's history entry. */
export type DirectorEntry = z.infer<typeof directorEntrySchema>;
/** One of {@link DIRECTOR_ENTRY_STATES}. */
export type DirectorEntryState = (typeof DIRECTOR_ENTRY_STATES)[number];
/** How a dispatched task ended, in a history entry. */
export type EntryResult = z.infer<typeof entryResultSchema>;
/** A worker as `GET /agents` lists it. */
export type DirectorAgent = z.infer<typeof directorAgentSchema>;
