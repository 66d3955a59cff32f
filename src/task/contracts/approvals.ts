import { z } from 'zod';

const sha256 = z.string().regex(/^[0-9a-f]{64}$/, 'must be a sha256 hex digest');

/** What a plan version changes against the plan approved before it (ids of steps and acceptance criteria). */
export const planChangesSchema = z
  .object({
    /** Where the change came from, e.g. `edited by hand after approval`. */
    origin: z.string(),
    goal_changed: z.boolean(),
    tools_added: z.array(z.string()),
    tools_removed: z.array(z.string()),
    steps_added: z.array(z.string()),
    steps_removed: z.array(z.string()),
    steps_changed: z.array(z.string()),
    acceptance_added: z.array(z.string()),
    acceptance_removed: z.array(z.string()),
    acceptance_changed: z.array(z.string()),
  })
  .strict();

/** `progress/approvals/requests/<id>.json`, written by the run. */
export const approvalRequestSchema = z.discriminatedUnion('type', [
  z
    .object({
      id: z.string().regex(/^req_/),
      type: z.literal('plan'),
      task_id: z.string(),
      plan_path: z.string(),
      plan_sig: sha256,
      rationale: z.string(),
      /** For a plan that replaces an approved one: what it changes. */
      changes: planChangesSchema.optional(),
      created_at: z.iso.datetime(),
      expires_at: z.iso.datetime(),
    })
    .strict(),
  z
    .object({
      id: z.string().regex(/^req_/),
      type: z.literal('tool'),
      task_id: z.string(),
      tool_name: z.string(),
      /** The tool's arguments, secrets redacted, for the human to read. */
      tool_args: z.unknown(),
      args_digest: sha256,
      tool_call_id: z.string(),
      rationale: z.string(),
      plan_sig: sha256.nullable(),
      created_at: z.iso.datetime(),
      expires_at: z.iso.datetime(),
    })
    .strict(),
]);

/** The decisions a human or service can record. */
export const DECISIONS = ['approved', 'denied', 'expired'] as const;

/** `progress/approvals/decisions/<id>.json`, written by a human, the CLI, the server, or auto mode. */
export const approvalDecisionSchema = z
  .object({
    id: z.string().regex(/^req_/),
    decision: z.enum(DECISIONS),
    approved_by: z.string().min(1),
    timestamp: z.iso.datetime(),
    /** Required for plan requests: the signature of the plan being approved. */
    plan_sig: sha256.optional(),
    /** Required for tool requests: the digest of the arguments being approved. */
    args_digest: sha256.optional(),
    reason: z.string().optional(),
  })
  .strict();

/** What a plan version changes against the approved one. */
export type PlanChanges = z.infer<typeof planChangesSchema>;
/** An approval request. */
export type ApprovalRequest = z.infer<typeof approvalRequestSchema>;
/** An approval decision. */
export type ApprovalDecision = z.infer<typeof approvalDecisionSchema>;
