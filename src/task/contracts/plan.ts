import { z } from 'zod';
import { canonicalDigest } from '../../core/canonical-json.ts';

/** The version tag of a plan. */
export const PLAN_VERSION = 'plan.v1';

/** A deterministic check attached to an acceptance criterion, run by Verify besides the model's judgement. */
export const acceptanceCheckSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('file_exists'), path: z.string().min(1) }),
  z.object({ type: z.literal('json_validate'), path: z.string().min(1), schema: z.record(z.string(), z.unknown()) }),
  z.object({ type: z.literal('test_runner') }),
  z.object({ type: z.literal('contains'), path: z.string().min(1), text: z.string().min(1) }),
]);

/** `progress/plan/current.json` and `progress/plan/NNNN.json`. */
export const planSchema = z
  .object({
    version: z.literal(PLAN_VERSION),
    goal: z.string().min(1),
    steps: z
      .array(
        z.object({
          id: z.string().min(1),
          title: z.string().min(1),
          description: z.string().optional(),
          tools: z.array(z.string()).optional(),
        }),
      )
      .min(1),
    allowed_tools: z.array(z.string().min(1)),
    acceptance: z
      .array(
        z.object({
          id: z.string().min(1),
          criterion: z.string().min(1),
          check: acceptanceCheckSchema.optional(),
        }),
      )
      .min(1),
  })
  .strict();

/** A plan. */
export type Plan = z.infer<typeof planSchema>;
/** A deterministic acceptance check. */
export type AcceptanceCheck = z.infer<typeof acceptanceCheckSchema>;

/**
 * A plan's signature: the SHA-256 of its RFC 8785 canonical JSON, in hex. Any edit, even to whitespace inside a
 * string, changes it; key order and file formatting do not.
 */
export function signPlan(plan: Plan): string {
  return canonicalDigest(plan);
}
