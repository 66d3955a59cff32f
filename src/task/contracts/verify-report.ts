import { z } from 'zod';

/** The version tag of a verify report. */
export const VERIFY_VERSION = 'verify.v1';

/** `progress/verify/NNNN-report.json`: one per verification attempt. */
export const verifyReportSchema = z
  .object({
    version: z.literal(VERIFY_VERSION),
    task_id: z.string(),
    attempt: z.number().int().positive(),
    plan_sig: z.string().regex(/^[0-9a-f]{64}$/),
    passed: z.boolean(),
    criteria: z.array(
      z.object({
        id: z.string(),
        criterion: z.string(),
        passed: z.boolean(),
        /** `model` for the model's judgement, or the deterministic check's type. */
        methods: z.array(z.string()).min(1),
        evidence: z.string(),
        artifacts: z.array(z.string()),
      }),
    ),
    created_at: z.iso.datetime(),
  })
  .strict();

/** A verification report. */
export type VerifyReport = z.infer<typeof verifyReportSchema>;
