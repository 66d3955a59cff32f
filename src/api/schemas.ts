// The wire contract of agency's HTTP API: every request and response body, as zod schemas. The server validates
// with them and generates its OpenAPI document from them, the typed client and the MCP adapter are typed from them,
// and the dashboard imports their types. Plain zod only: this module runs in any JavaScript runtime.
import { z } from 'zod';
import { approvalDecisionSchema, approvalRequestSchema, planChangesSchema } from '../task/contracts/approvals.ts';
import { budgetsRemainingSchema, eventFrameSchema, usageJsonSchema } from '../task/contracts/events.ts';
import { planSchema } from '../task/contracts/plan.ts';
import { budgetLimitsSchema, STOP_REASONS } from '../task/contracts/state.ts';
import { verifyReportSchema } from '../task/contracts/verify-report.ts';

/** A task id as the runner makes them: `task_` and a ULID. */
export const taskIdSchema = z
  .string()
  .regex(/^task_[0-9A-HJKMNP-TV-Z]{26}$/, 'must be a task id (task_ and 26 Crockford base32 characters)');

/** An approval request id: `req_` and a ULID. */
export const requestIdSchema = z
  .string()
  .regex(/^req_[0-9A-HJKMNP-TV-Z]{26}$/, 'must be a request id (req_ and 26 Crockford base32 characters)');

/**
 * Where a task is, as the server sees it: `created` (held for uploads, not started), `queued` (waiting for a free
 * run slot), the run's own statuses, and `interrupted` (its process is gone; `resume` continues it).
 */
export const TASK_STATUSES = [
  'created',
  'queued',
  'running',
  'waiting_approval',
  'completed',
  'failed',
  'stopped',
  'interrupted',
] as const;

/** What a task root holds: a governed run, or a durable workflow run. */
export const TASK_KINDS = ['task', 'workflow'] as const;

/** Why a task needs attention: it waits for a person, its budget stopped it, its model calls are being retried. */
export const STUCK_REASONS = ['waiting_approval', 'over_budget', 'retrying', 'interrupted'] as const;

/** What the task list can be filtered by: a status, `stuck` (any stuck reason), or `active` (not finished). */
export const TASK_FILTERS = [...TASK_STATUSES, 'stuck', 'active'] as const;

const budgetsInput = z
  .object({
    max_wall_clock_ms: z.number().int().positive().optional(),
    max_iterations: z.number().int().positive().optional(),
    max_consecutive_tool_iterations: z.number().int().positive().optional(),
    tool_timeout_ms: z.number().int().positive().optional(),
    max_total_tokens: z.number().int().positive().optional(),
    max_cost_usd: z.number().positive().optional(),
    verify_reserve: z.number().min(0).max(0.9).optional(),
  })
  .strict();

/** A file sent with a new task, written under `task/`. */
export const inlineFileSchema = z
  .object({
    /** A path relative to `task/`, e.g. `report.md` or `data/q3.csv`. */
    name: z.string().min(1).max(255),
    content: z.string(),
    /** @default 'utf8' */
    encoding: z.enum(['utf8', 'base64']).optional(),
  })
  .strict();

/** `POST /agent/tasks/do` and `/do/async`: a new governed task. */
export const startTaskRequestSchema = z
  .object({
    /** The task, in Markdown: it becomes `task/brief.md`. Its first heading is the goal unless `goal` is given. */
    brief: z.string().min(1).max(200_000),
    goal: z.string().min(1).max(2_000).optional(),
    /** A model the server allows (`GET /agent/server` lists them). @default the server's default model */
    model: z.string().min(1).max(500).optional(),
    /** @default 'gather-plan-act-verify' */
    loop: z.string().min(1).max(100).optional(),
    /** A role of the server's roles registry (docs/roles.md): its persona, tools and budgets, under `budgets`. */
    role: z.string().min(1).max(100).optional(),
    budgets: budgetsInput.optional(),
    approvals: z
      .object({
        /** `auto` approves everything but still writes both files; the server must allow it. @default 'file' */
        mode: z.enum(['file', 'auto']).optional(),
        /** Tools whose every call needs approval, on top of the server's policy. */
        require_tools: z.array(z.string().min(1).max(100)).max(100).optional(),
        /** @default 86400000 (24 h) */
        expires_in_ms: z.number().int().positive().optional(),
      })
      .strict()
      .optional(),
    /** Small files for `task/`, sent inline; larger ones go through `upload` while the task is held. */
    files: z.array(inlineFileSchema).max(100).optional(),
    /** Create the task without starting it, so files can be uploaded first; `POST …/start` starts it. */
    hold: z.boolean().optional(),
  })
  .strict();

/** One row of the task list. */
export const taskSummarySchema = z
  .object({
    id: taskIdSchema,
    /** `task`: a governed run; `workflow`: a durable workflow run (`runWorkflow`), shown but never resumed here. */
    kind: z.enum(TASK_KINDS),
    status: z.enum(TASK_STATUSES),
    finish_reason: z.enum(STOP_REASONS).nullable(),
    stuck: z.enum(STUCK_REASONS).nullable(),
    goal: z.string(),
    model: z.string().nullable(),
    phase: z.string().nullable(),
    created_at: z.iso.datetime(),
    updated_at: z.iso.datetime(),
    usage: usageJsonSchema.nullable(),
    budgets: z.object({ limits: budgetLimitsSchema, remaining: budgetsRemainingSchema }).nullable(),
    pending_approvals: z.number().int().nonnegative(),
  })
  .strict();

/** `GET /agent/tasks` → a page of tasks, newest first. */
export const taskListSchema = z
  .object({
    items: z.array(taskSummarySchema),
    /** Pass as `cursor` for the next page; null on the last one. */
    next_cursor: z.string().nullable(),
  })
  .strict();

/** A plan version as the task page shows it. */
export const planVersionSchema = z
  .object({
    version: z.number().int().positive(),
    signature: z.string(),
    plan: planSchema,
    origin: z.string().nullable(),
    changes: planChangesSchema.nullable(),
    approved: z.boolean(),
  })
  .strict();

/** A file the run delivered. */
export const deliverableSchema = z
  .object({
    path: z.string(),
    kind: z.string(),
    title: z.string(),
    mime: z.string(),
    size: z.number().int().nonnegative(),
    sha256: z.string(),
  })
  .strict();

/** `GET /agent/tasks/{id}`: a task with its plan versions, verify reports, approvals and deliverables. */
export const taskDetailSchema = taskSummarySchema
  .extend({
    brief: z.string(),
    spec: z.record(z.string(), z.unknown()).nullable(),
    plans: z.array(planVersionSchema),
    verify: z.array(verifyReportSchema),
    approvals: z.array(
      z
        .object({
          request: approvalRequestSchema,
          decision: approvalDecisionSchema.nullable(),
          /** `stale`: a plan request whose plan has changed since, so a decision would be refused. */
          state: z.enum(['pending', 'decided', 'expired', 'stale']),
        })
        .strict(),
    ),
    deliverables: z.array(deliverableSchema),
    last_seq: z.number().int().nonnegative(),
    files: z.array(z.string()),
  })
  .strict();

/** `GET /agent/tasks/{id}/result?view=`: the run's result (seed 000's DoTaskResult), in the view asked for. */
export const taskResultSchema = z
  .object({
    task_id: taskIdSchema,
    loop_name: z.string(),
    loop_version: z.string(),
    loop_signature: z.string(),
    progress_dir: z.string(),
    finish_reason: z.enum(STOP_REASONS),
    usage: usageJsonSchema,
    output_text: z.string().optional(),
    deliverables: z.array(deliverableSchema).optional(),
    verified: z.boolean().optional(),
    plan_sig: z.string().nullable().optional(),
    steps: z
      .array(
        z
          .object({
            id: z.string(),
            name: z.string(),
            kind: z.string(),
            status: z.enum(['completed', 'failed', 'running']),
            started_at: z.string().optional(),
            ended_at: z.string().optional(),
            tools_used: z.array(z.string()),
            tool_calls: z.number().int().nonnegative(),
            tools_blocked: z.number().int().nonnegative(),
            output_ref: z.string().optional(),
            usage: usageJsonSchema,
          })
          .strict(),
      )
      .optional(),
    warnings: z.array(z.string()).optional(),
    error: z.object({ code: z.string(), message: z.string() }).strict().optional(),
    started_at: z.string(),
    completed_at: z.string(),
  })
  .strict();

/** A pending request in the approvals inbox, with what a reviewer needs to judge it. */
export const inboxItemSchema = z
  .object({
    task_id: taskIdSchema,
    goal: z.string(),
    request: approvalRequestSchema,
    /** For a plan request: the plan under review. */
    plan: planSchema.nullable(),
    /** `expired`: past `expires_at`; `stale`: the plan changed since it was asked, so a decision would be refused. */
    state: z.enum(['pending', 'expired', 'stale']),
  })
  .strict();

/** `GET /agent/approvals`. */
export const inboxSchema = z.object({ items: z.array(inboxItemSchema) }).strict();

/** `POST /agent/approvals/{id}/decision`. `approved_by` is the authenticated caller, never the body. */
export const decisionRequestSchema = z
  .object({
    decision: z.enum(['approved', 'denied']),
    reason: z.string().max(2_000).optional(),
    /** When given, the request must belong to this task. */
    task_id: taskIdSchema.optional(),
  })
  .strict();

/** `POST /agent/tasks/{id}/resume`: budgets to raise for the rest of the run. */
export const resumeRequestSchema = z.object({ budgets: budgetsInput.optional() }).strict();

/** `POST /agent/tasks/{id}/stop`. */
export const stopRequestSchema = z.object({ reason: z.enum(['stopped', 'cancelled']).optional() }).strict();

/** The answer to stop, resume and start. */
export const taskActionSchema = z
  .object({ task_id: taskIdSchema, status: z.enum(TASK_STATUSES), message: z.string() })
  .strict();

/** `POST /agent/tasks/{id}/upload` → the files now under `task/`. */
export const uploadResultSchema = z
  .object({ task_id: taskIdSchema, files: z.array(z.object({ name: z.string(), size: z.number() }).strict()) })
  .strict();

/** `GET /agent/server`: what this server allows. */
export const serverInfoSchema = z
  .object({
    version: z.string(),
    principal: z.string(),
    default_model: z.string().nullable(),
    models: z.array(z.string()),
    approval_modes: z.array(z.enum(['file', 'auto'])),
    policy: z.string(),
    max_concurrent_runs: z.number().int().positive(),
    limits: z
      .object({ body_bytes: z.number().int(), upload_bytes: z.number().int(), upload_files: z.number().int() })
      .strict(),
  })
  .strict();

/** Every error body: a stable code, a readable message, and details (which field, what to do). */
export const errorBodySchema = z
  .object({ error: z.string(), message: z.string(), details: z.record(z.string(), z.unknown()) })
  .strict();

/** The journal frame, as events stream it. */
export { eventFrameSchema };

/** A new task. */
export type StartTaskRequest = z.infer<typeof startTaskRequestSchema>;
/** A task as the list shows it. */
export type TaskSummary = z.infer<typeof taskSummarySchema>;
/** A page of the task list. */
export type TaskList = z.infer<typeof taskListSchema>;
/** A task with everything the task page shows. */
export type TaskDetail = z.infer<typeof taskDetailSchema>;
/** A plan version. */
export type PlanVersion = z.infer<typeof planVersionSchema>;
/** A task's result. */
export type TaskResult = z.infer<typeof taskResultSchema>;
/** An approval in the inbox. */
export type InboxItem = z.infer<typeof inboxItemSchema>;
/** A decision sent by a reviewer. */
export type DecisionRequest = z.infer<typeof decisionRequestSchema>;
/** What stop, resume and start answer. */
export type TaskAction = z.infer<typeof taskActionSchema>;
/** Files uploaded. */
export type UploadResult = z.infer<typeof uploadResultSchema>;
/** What the server allows. */
export type ServerInfo = z.infer<typeof serverInfoSchema>;
/** An error body. */
export type ErrorBody = z.infer<typeof errorBodySchema>;
/** One of {@link TASK_STATUSES}. */
export type TaskStatus = (typeof TASK_STATUSES)[number];
/** One of {@link TASK_FILTERS}. */
export type TaskFilter = (typeof TASK_FILTERS)[number];
/** One of {@link STUCK_REASONS}. */
export type StuckReason = (typeof STUCK_REASONS)[number];
