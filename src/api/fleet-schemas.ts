// The server's fleet routes (`/agent/fleet/…`): the components discovery found, and the calls the server makes to a
// worker on a client's behalf. Plain zod, built on the worker's wire contract (src/fleet/api/worker-schemas.ts), so
// the client and the dashboard type their calls from it.
import { z } from 'zod';
import { labelSchema, MAX_LABELS } from '../config/labels.ts';
import {
  COMPONENT_STATES,
  historyRecordSchema,
  sessionIdSchema,
  statusSchema,
  taskRequestSchema,
  WORKER_TASK_STATES,
  workerTaskIdSchema,
  workerTaskSchema,
} from '../fleet/api/worker-schemas.ts';

/** A component's name as its `/status` reports it: what the routes address a worker by. */
export const componentNameSchema = z
  .string()
  .min(1)
  .max(128)
  .regex(/^[^/\s]+$/, 'must be a component name (no slashes or spaces)');

const isoOrNull = z.iso.datetime().nullable();

/** One component, with its health: what `GET /agent/fleet` lists and its event stream sends. */
export const componentViewSchema = z
  .object({
    /** null until it first answered `/status`. */
    name: z.string().nullable(),
    type: statusSchema.shape.type.nullable(),
    interfaces: statusSchema.shape.interfaces,
    url: z.string(),
    /** Found by the port scan, or named in the static list. */
    source: z.enum(['scan', 'static']),
    state: z.enum(COMPONENT_STATES).nullable(),
    /** `green` answers; `yellow` missed 1–2 polls in a row; `red` missed 3 or more (unreachable). */
    health: z.enum(['green', 'yellow', 'red']),
    failures: z.number().int().nonnegative(),
    /** Why the last poll failed, while it fails. */
    error: z.string().nullable(),
    version: z.string().nullable(),
    /** As of `seen_at`. */
    uptime_seconds: z.number().int().nonnegative().nullable(),
    current_task: statusSchema.shape.current_task,
    executor: z.string().nullable(),
    model: z.string().nullable(),
    /** True for an agent that takes tasks. */
    taskable: z.boolean(),
    /** When it last answered. */
    seen_at: isoOrNull,
    /** When it was last polled. */
    checked_at: z.iso.datetime(),
  })
  .strict();

/** A worker of the fleet's PostgreSQL registry (`agency.workers`), with the health of its heartbeats. */
export const registeredWorkerSchema = z
  .object({
    name: z.string(),
    url: z.string(),
    host: z.string(),
    executors: z.array(z.string()),
    labels: z.array(z.string()),
    state: z.string(),
    current_task: z.string().nullable(),
    heartbeat_seconds: z.number(),
    last_heartbeat: z.string(),
    started_at: z.string(),
    stopped_at: z.string().nullable(),
    /** `healthy`; `late` past 2 heartbeat intervals; `lost` past 6; `stopped` after a clean shutdown. */
    health: z.enum(['healthy', 'late', 'lost', 'stopped']),
    heartbeat_age_seconds: z.number(),
  })
  .strict();

/** The registry part of the fleet, on a server started with `AGENCY_DATABASE_URL`. */
export const fleetRegistrySchema = z
  .object({
    /** `host:port/database` (never the credentials). */
    database: z.string(),
    /** As of `checked_at`; the last good read while `error` is set. */
    workers: z.array(registeredWorkerSchema),
    /** Why the last read failed, while it fails. */
    error: z.string().nullable(),
    /** When the registry was last read; null before the first read. */
    checked_at: isoOrNull,
  })
  .strict();

/** `GET /agent/fleet`, and each `fleet` event of `GET /agent/fleet/events`. */
export const fleetSchema = z
  .object({
    /** False when the server runs without discovery (`agency serve --no-fleet`). */
    enabled: z.boolean(),
    /** The range of this host scanned, or null. */
    scan: z.object({ host: z.string(), from: z.number().int(), to: z.number().int() }).strict().nullable(),
    /** The static list: components polled whether or not they answer. */
    urls: z.array(z.string()),
    components: z.array(componentViewSchema),
    /** Open ports of the range whose `/status` is not a component's, and why. */
    ignored: z.array(z.object({ url: z.string(), reason: z.string() }).strict()),
    /** The PostgreSQL registry's workers, when the server runs with `AGENCY_DATABASE_URL`; absent otherwise. */
    registry: fleetRegistrySchema.optional(),
  })
  .strict();

/** `GET /agent/fleet/components/{name}`: a component polled just now, with its config and lifecycle lines. */
export const componentDetailSchema = componentViewSchema
  .extend({ config: statusSchema.shape.config.nullable(), log: statusSchema.shape.log })
  .strict();

/**
 * `POST /agent/fleet/workers/{name}/tasks`: what a client may send a worker through the server. No `env` and no
 * `project`: those are for directors that talk to workers themselves.
 */
export const fleetTaskRequestSchema = taskRequestSchema
  .pick({ prompt: true, model: true, timeout_seconds: true, session_id: true })
  .strict();

/** `POST /agent/fleet/workers/{name}/tasks` → 201. */
export const fleetTaskCreatedSchema = z
  .object({
    task_id: workerTaskIdSchema,
    session_id: sessionIdSchema,
    status: z.enum(WORKER_TASK_STATES),
    /** The worker's name. */
    worker: z.string(),
  })
  .strict();

/** `POST /agent/fleet/tasks`: a task for the fleet's queue, with the labels a worker must have to take it. */
export const fleetQueueRequestSchema = fleetTaskRequestSchema
  .extend({ labels: z.array(labelSchema).max(MAX_LABELS, `must be at most ${MAX_LABELS} labels`).optional() })
  .strict();

/** `POST /agent/fleet/tasks` → 202: the task is in the fleet's queue; the first idle worker that matches takes it. */
export const fleetTaskQueuedSchema = z
  .object({ task_id: workerTaskIdSchema, session_id: sessionIdSchema, state: z.literal('queued') })
  .strict();

/** `GET /agent/fleet/workers/{name}/tasks/{id}`: the task, its prompt and lifecycle lines (not the raw output). */
export const fleetTaskSchema = workerTaskSchema
  .extend({ prompt: historyRecordSchema.shape.prompt, log: historyRecordSchema.shape.log })
  .strict();

/** What cancel, continue and end answer: the task's state after the call, and cancel's message or end's output. */
export const fleetTaskActionSchema = z
  .object({
    task_id: workerTaskIdSchema,
    state: z.enum(WORKER_TASK_STATES),
    message: z.string().optional(),
    output: z.string().nullable().optional(),
  })
  .strict();

/** A task of the fleet's database (`agency.tasks`), as `GET /agent/fleet/tasks` lists it. */
export const fleetTaskSummarySchema = z
  .object({
    id: workerTaskIdSchema,
    executor: z.string(),
    state: z.enum(WORKER_TASK_STATES),
    /** How many times a worker took it (the fencing token of its current run); 0 while queued. */
    epoch: z.number().int().nonnegative(),
    /** The worker that took it last, or null while queued. */
    worker: z.string().nullable(),
    session_id: z.string(),
    /** The prompt's first 200 characters. */
    prompt: z.string(),
    created_at: z.iso.datetime(),
    updated_at: z.iso.datetime(),
  })
  .strict();

/** `GET /agent/fleet/tasks`: the newest tasks of the fleet's database, newest first. */
export const fleetTaskListSchema = z.object({ items: z.array(fleetTaskSummarySchema) }).strict();

/** A component as the fleet routes show it. */
export type ComponentView = z.infer<typeof componentViewSchema>;
/** `GET /agent/fleet`. */
export type FleetView = z.infer<typeof fleetSchema>;
/** The registry part of `GET /agent/fleet`. */
export type FleetRegistryView = z.infer<typeof fleetRegistrySchema>;
/** A component with its config and log. */
export type ComponentDetail = z.infer<typeof componentDetailSchema>;
/** A task for a worker. */
export type FleetTaskRequest = z.infer<typeof fleetTaskRequestSchema>;
/** A task for the fleet's queue. */
export type FleetQueueRequest = z.infer<typeof fleetQueueRequestSchema>;
/** A task in the fleet's queue. */
export type FleetTaskQueued = z.infer<typeof fleetTaskQueuedSchema>;
/** A task a worker took. */
export type FleetTaskCreated = z.infer<typeof fleetTaskCreatedSchema>;
/** A task on a worker, with its prompt and log. */
export type FleetTask = z.infer<typeof fleetTaskSchema>;
/** A task of the fleet's database. */
export type FleetTaskSummary = z.infer<typeof fleetTaskSummarySchema>;
/** The answer of cancel, continue and end. */
export type FleetTaskAction = z.infer<typeof fleetTaskActionSchema>;
