import { z } from 'zod';
import { budgetsRemainingSchema, usageJsonSchema } from './events.ts';

/** The version tag of `progress/state.json`. */
export const STATE_VERSION = 'agent.state.v1';

/** The phases of a governed run; custom loops may use their own names. */
export const PHASES = ['init', 'gather', 'plan', 'approval', 'act', 'verify', 'finalize', 'done'] as const;

/** Where a run is. */
export const RUN_STATUSES = ['running', 'waiting_approval', 'completed', 'failed', 'stopped'] as const;

/** Why a run ended. */
export const STOP_REASONS = [
  'completed',
  'budget.wall_clock',
  'budget.iterations',
  'budget.consecutive_tool_iterations',
  'budget.tokens',
  'budget.cost',
  'approval.denied',
  'approval.expired',
  'verify.failed',
  'stopped',
  'cancelled',
  'no_more_tools',
  'error',
] as const;

/**
 * The stop reasons that end a run for good: it did its work (`completed`), a person refused its plan
 * (`approval.denied`), or its loop decided it is done (`verify.failed`, `no_more_tools`). A run stopped for any other
 * reason can be resumed.
 */
export const FINAL_STOP_REASONS: readonly StopReason[] = [
  'completed',
  'approval.denied',
  'verify.failed',
  'no_more_tools',
];

/** One of {@link STOP_REASONS}. */
export type StopReason = (typeof STOP_REASONS)[number];

/** The limits a run was started with; absent limits are null. */
export const budgetLimitsSchema = z.object({
  max_wall_clock_ms: z.number().int().positive().nullable(),
  max_iterations: z.number().int().positive().nullable(),
  max_consecutive_tool_iterations: z.number().int().positive().nullable(),
  tool_timeout_ms: z.number().int().positive().nullable(),
  max_total_tokens: z.number().int().positive().nullable(),
  max_cost_usd: z.number().positive().nullable(),
  verify_reserve: z.number().min(0).max(0.9),
});

/** `progress/state.json`: replaced atomically at every step boundary. */
export const stateSchema = z
  .object({
    version: z.literal(STATE_VERSION),
    task_id: z.string().regex(/^task_/),
    loop: z.object({ name: z.string(), version: z.string() }),
    phase: z.string(),
    status: z.enum(RUN_STATUSES),
    plan_sig: z
      .string()
      .regex(/^[0-9a-f]{64}$/)
      .nullable(),
    /** The signature of the plan a human (or auto mode) approved, if any. */
    approved_plan_sig: z
      .string()
      .regex(/^[0-9a-f]{64}$/)
      .nullable(),
    last_step_id: z.string().nullable(),
    last_seq: z.number().int().nonnegative(),
    steps_done: z.number().int().nonnegative(),
    verify_attempts: z.number().int().nonnegative(),
    budgets: z.object({ limits: budgetLimitsSchema, remaining: budgetsRemainingSchema }),
    usage: usageJsonSchema,
    finish_reason: z.enum(STOP_REASONS).nullable(),
    started_at: z.iso.datetime(),
    updated_at: z.iso.datetime(),
  })
  .strict();

/** The run state on disk. */
export type StateFile = z.infer<typeof stateSchema>;
/** Budget limits on disk. */
export type BudgetLimits = z.infer<typeof budgetLimitsSchema>;
