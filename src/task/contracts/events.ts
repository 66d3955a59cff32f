import { z } from 'zod';

/** The version tag of every journal frame. */
export const EVENTS_VERSION = 'agent.events.v1';

/** Every event type a governed run or a durable workflow run journals. */
export const EVENT_TYPES = [
  'run.started',
  'phase.start',
  'phase.finish',
  'plan.proposed',
  'plan.changed',
  'approval.requested',
  'approval.decided',
  'approval.invalid',
  'tool.call',
  'tool.result',
  'tool.blocked',
  'policy.blocked',
  'policy.modified',
  'memory.read',
  'memory.write',
  'usage.delta',
  'budget.hit',
  'budget.changed',
  'verify.pass',
  'verify.fail',
  'run.resumed',
  'step.checkpoint',
  'agent.start',
  'agent.event',
  'agent.finish',
  'warning',
  'finish',
  'error',
] as const;

/** One of {@link EVENT_TYPES}. */
export type EventType = (typeof EVENT_TYPES)[number];

/** Token and cost counts as written in journal frames and state files. */
export const usageJsonSchema = z.object({
  input_tokens: z.number().int().nonnegative(),
  output_tokens: z.number().int().nonnegative(),
  total_tokens: z.number().int().nonnegative(),
  reasoning_tokens: z.number().int().nonnegative(),
  cached_input_tokens: z.number().int().nonnegative(),
  cost_usd: z.number().nonnegative().nullable(),
});

/** What is left of each budget; absent limits are null. */
export const budgetsRemainingSchema = z.object({
  wall_clock_ms: z.number().nullable(),
  iterations: z.number().int().nullable(),
  tokens: z.number().int().nullable(),
  cost_usd: z.number().nullable(),
});

/** One line of `progress/events.ndjson`. */
export const eventFrameSchema = z
  .object({
    version: z.literal(EVENTS_VERSION),
    id: z.string().regex(/^evt_[0-9A-HJKMNP-TV-Z]{26}$/),
    seq: z.number().int().positive(),
    ts: z.iso.datetime(),
    type: z.enum(EVENT_TYPES),
    step: z.string().optional(),
    step_kind: z.string().optional(),
    message: z.string().optional(),
    data: z.record(z.string(), z.unknown()).optional(),
    error: z.object({ code: z.string(), message: z.string() }).optional(),
    usage_delta: usageJsonSchema.optional(),
    budgets_remaining: budgetsRemainingSchema.optional(),
  })
  .strict();

/** A journal frame. */
export type EventFrame = z.infer<typeof eventFrameSchema>;
/** Usage as written to disk. */
export type UsageJson = z.infer<typeof usageJsonSchema>;
/** Remaining budgets as written to disk. */
export type BudgetsRemaining = z.infer<typeof budgetsRemainingSchema>;

/** A frame before the journal gives it its version, id, seq and timestamp. */
export type EventInput = Omit<EventFrame, 'version' | 'id' | 'seq' | 'ts'>;
