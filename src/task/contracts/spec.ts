import { z } from 'zod';
import { budgetLimitsSchema } from './state.ts';

/** The version tag of `progress/spec.json`. */
export const SPEC_VERSION = 'task.spec.v1';

/** How much conversation history a step sees (seed 000, "Seeding Conversation History"). */
export const HISTORY_POLICIES = ['none', 'seedOnly', 'lastN', 'summary', 'includeTools'] as const;

/** `progress/spec.json`: the TaskSpec a run was started with, so `resume` needs only the folder. */
export const specSchema = z
  .object({
    version: z.literal(SPEC_VERSION),
    task_id: z.string().regex(/^task_/),
    goal: z.string().min(1),
    user_id: z.string().nullable(),
    /** A model spec string, e.g. `openai:gpt-4o` or `replay:cassette.jsonl`; null when a model object was passed. */
    model: z.string().nullable(),
    loop: z.string().min(1),
    budgets: budgetLimitsSchema,
    approvals: z.object({
      mode: z.enum(['file', 'auto']),
      require_plan: z.boolean(),
      require_tools: z.array(z.string()),
      expires_in_ms: z.number().int().positive(),
    }),
    history: z.object({
      policy: z.enum(HISTORY_POLICIES),
      last_n: z.number().int().positive(),
      summary_max_tokens: z.number().int().positive(),
    }),
    /** Conversation seeded from the TaskSpec, placed before each phase's ask under the history policy. */
    seed_messages: z.array(z.record(z.string(), z.unknown())),
    /** Allow one refine-and-retry when Verify fails and budget remains. */
    refine_on_verify_fail: z.boolean(),
    created_at: z.iso.datetime(),
  })
  .strict();

/** A task spec as written to disk. */
export type SpecFile = z.infer<typeof specSchema>;
