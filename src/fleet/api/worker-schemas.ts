// The wire contract of a worker daemon (`agency worker`), seed 004's appendix A: the universal `/status` and
// `/shutdown`, and the agent endpoints (`/task`, `/task/:id`, cancel, continue, end, debug, `/tasks`, `/history`).
// Plain zod: the worker validates its requests (and, in tests, its answers) with it; its client, directors, the
// dashboard and the CLI parse and type the answers with the same schemas.
import { z } from 'zod';

/** Where a component is in its life: `starting` until its config is valid and its executor answered its check. */
export const COMPONENT_STATES = ['starting', 'idle', 'working', 'stopping'] as const;

/** Where a task is. `idle`: its executor returned and the session waits for `continue` or `end`. */
export const WORKER_TASK_STATES = [
  'queued',
  'working',
  'idle',
  'cancelling',
  'cancelled',
  'completed',
  'failed',
] as const;

/** The states a task no longer leaves. */
export const FINAL_WORKER_TASK_STATES = ['cancelled', 'completed', 'failed'] as const;

/** Why a task failed: seed 004's error types, and `worker_lost` for a task whose worker died under it. */
export const TASK_ERROR_TYPES = [
  'timeout',
  'rate_limit',
  'context_window',
  'invalid_api_key',
  'network',
  'executor_error',
  'sandbox_error',
  'cancelled',
  'worker_lost',
  'internal',
] as const;

/** The executors a worker can run. */
export const EXECUTOR_KINDS = ['builtin', 'claude', 'codex'] as const;

/** A task's id on a worker. */
export const workerTaskIdSchema = z.string().regex(/^task-[0-9a-z]{26}$/, 'must be a worker task id (task-…)');
/** A session's id on a worker (a UUID, as Claude Code's `--session-id` takes). */
export const sessionIdSchema = z
  .string()
  .regex(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/, 'must be a session id (a UUID)');

const tokenUsage = z.object({ input: z.number().int().nonnegative(), output: z.number().int().nonnegative() }).strict();

/** `GET /status`. */
export const statusSchema = z
  .object({
    type: z.enum(['agent', 'director', 'helper', 'view']),
    interfaces: z.array(z.enum(['statusable', 'taskable', 'observable', 'configurable'])),
    name: z.string(),
    version: z.string(),
    state: z.enum(COMPONENT_STATES),
    uptime_seconds: z.number().int().nonnegative(),
    current_task: z
      .object({ id: z.string(), started_at: z.iso.datetime(), prompt_preview: z.string() })
      .strict()
      .nullable(),
    config: z.record(z.string(), z.unknown()),
    /** Lifecycle lines (task started, finished, errors), never executor output. */
    log: z.array(z.object({ time: z.iso.datetime(), level: z.string(), message: z.string() }).strict()),
  })
  .strict();

/** `POST /task`. */
export const taskRequestSchema = z
  .object({
    prompt: z.string().min(1).max(200_000),
    model: z.string().min(1).max(200).optional(),
    timeout_seconds: z.number().int().positive().max(86_400).optional(),
    session_id: sessionIdSchema.nullable().optional(),
    project: z
      .object({ name: z.string().min(1).max(200), prompt: z.string().max(50_000) })
      .strict()
      .optional(),
    /** Extra environment for the executor; names of credentials the worker holds are refused. */
    env: z.record(z.string().regex(/^[A-Z_][A-Z0-9_]{0,63}$/), z.string().max(10_000)).optional(),
    /**
     * An existing absolute directory the executor works in instead of a fresh session directory; it must lie within
     * the worker's `sandbox.read_write_paths` (checked on its real path). Continued turns work there too.
     */
    workdir: z.string().min(1).max(4096).optional(),
  })
  .strict();

/** `POST /task` → 201. */
export const taskCreatedSchema = z
  .object({ task_id: workerTaskIdSchema, session_id: sessionIdSchema, status: z.enum(WORKER_TASK_STATES) })
  .strict();

/** `GET /task/:id`. */
export const workerTaskSchema = z
  .object({
    task_id: workerTaskIdSchema,
    state: z.enum(WORKER_TASK_STATES),
    executor: z.enum(EXECUTOR_KINDS),
    exit_code: z.number().int().nullable(),
    started_at: z.iso.datetime().nullable(),
    completed_at: z.iso.datetime().nullable(),
    duration_seconds: z.number().nonnegative().nullable(),
    output: z.string().nullable(),
    error: z
      .object({ type: z.enum(TASK_ERROR_TYPES), message: z.string() })
      .strict()
      .nullable(),
    session_id: sessionIdSchema,
    token_usage: tokenUsage.nullable(),
    cost_usd: z.number().nonnegative().nullable(),
    /** The prompts of the session so far, the first one and each `continue`. */
    turns: z.number().int().positive(),
  })
  .strict();

/** `POST /task/:id/continue`. */
export const continueRequestSchema = z.object({ prompt: z.string().min(1).max(200_000) }).strict();

/** `GET /history?page&limit`. */
export const historyPageSchema = z
  .object({
    items: z.array(workerTaskSchema.omit({ output: true }).extend({ prompt_preview: z.string() }).strict()),
    page: z.number().int().positive(),
    limit: z.number().int().positive(),
    total: z.number().int().nonnegative(),
  })
  .strict();

/** `GET /history/:id` and `GET /task/:id/debug`: a task with its prompt, lifecycle log and the executor's raw output. */
export const historyRecordSchema = workerTaskSchema
  .extend({
    prompt: z.string(),
    /** The task's own workdir (its real path), when `POST /task` gave one; else it works in its session directory. */
    workdir: z.string().nullable().optional(),
    log: z.array(z.object({ time: z.iso.datetime(), level: z.string(), message: z.string() }).strict()),
    stdout: z.string(),
    stderr: z.string(),
  })
  .strict();

/** `POST /shutdown`. */
export const shutdownRequestSchema = z
  .object({ timeout_seconds: z.number().int().nonnegative().max(3_600).optional(), force: z.boolean().optional() })
  .strict();

/** `GET /tasks`: the tasks the worker holds (running, or idle sessions waiting for `continue` or `end`). */
export const taskListSchema = z.object({ items: z.array(workerTaskSchema) }).strict();

/** `POST /task/:id/cancel` → 200: `cancelling` while the executor stops, `cancelled` when it already has. */
export const cancelResponseSchema = z
  .object({ task_id: workerTaskIdSchema, state: z.enum(WORKER_TASK_STATES), message: z.string() })
  .strict();

/** `POST /task/:id/continue` → 200. */
export const continueResponseSchema = z
  .object({ task_id: workerTaskIdSchema, session_id: sessionIdSchema, state: z.enum(WORKER_TASK_STATES) })
  .strict();

/** `POST /task/:id/end` → 200. */
export const endResponseSchema = z
  .object({ task_id: workerTaskIdSchema, state: z.enum(WORKER_TASK_STATES), output: z.string().nullable() })
  .strict();

/** `POST /shutdown` → 202. */
export const shutdownResponseSchema = z
  .object({ message: z.string(), drain_timeout: z.number().int().nonnegative() })
  .strict();

/** Every error of a worker: seed 004's `{error, message, details}` with `details.retryable`. */
export const workerErrorSchema = z
  .object({ error: z.string(), message: z.string(), details: z.record(z.string(), z.unknown()) })
  .passthrough();

/** A worker's status. */
export type WorkerStatus = z.infer<typeof statusSchema>;
/** A task request. */
export type WorkerTaskRequest = z.infer<typeof taskRequestSchema>;
/** A task as a worker reports it. */
export type WorkerTask = z.infer<typeof workerTaskSchema>;
/** A history record. */
export type HistoryRecord = z.infer<typeof historyRecordSchema>;
/** `POST /task/:id/cancel` → 200. */
export type CancelResponse = z.infer<typeof cancelResponseSchema>;
/** `POST /task/:id/continue` → 200. */
export type ContinueResponse = z.infer<typeof continueResponseSchema>;
/** `POST /task/:id/end` → 200. */
export type EndResponse = z.infer<typeof endResponseSchema>;
/** `POST /shutdown` → 202. */
export type ShutdownResponse = z.infer<typeof shutdownResponseSchema>;
/** One of {@link WORKER_TASK_STATES}. */
export type WorkerTaskState = (typeof WORKER_TASK_STATES)[number];
/** One of {@link TASK_ERROR_TYPES}. */
export type TaskErrorType = (typeof TASK_ERROR_TYPES)[number];
/** One of {@link EXECUTOR_KINDS}. */
export type ExecutorKind = (typeof EXECUTOR_KINDS)[number];
