import { readFile } from 'node:fs/promises';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { AgencyError } from '../core/errors.ts';
import { STOP_REASONS } from '../task/contracts/state.ts';
import { parseContractFile } from '../task/task-spec.ts';
import { linearRegExp } from '../tools/json-schema/linear-regexp.ts';

/** The name of a case's expected-outcome file. */
export const EXPECT_FILE = 'expect.yaml';

// A pattern that cannot run on the linear-time engine is refused when the suite is read, not when its case ends.
const patternSchema = z
  .string()
  .min(1)
  .superRefine((pattern, context) => {
    try {
      linearRegExp(pattern, '');
    } catch (error) {
      context.addIssue({ code: 'custom', message: (error as Error).message });
    }
  });

/**
 * A check on the finished run's `progress/`: the runner's own acceptance checks (`file_exists`, `contains`,
 * `json_validate`, paths relative to `progress/`) and `matches`, a regular expression the file's text must match.
 */
export const deliverableCheckSchema = z.discriminatedUnion('type', [
  // The plan's check shapes (contracts/plan.ts), strict: a misspelt field in a suite is an error, not ignored.
  z.object({ type: z.literal('file_exists'), path: z.string().min(1) }).strict(),
  z.object({ type: z.literal('contains'), path: z.string().min(1), text: z.string().min(1) }).strict(),
  z
    .object({ type: z.literal('json_validate'), path: z.string().min(1), schema: z.record(z.string(), z.unknown()) })
    .strict(),
  z.object({ type: z.literal('matches'), path: z.string().min(1), pattern: patternSchema }).strict(),
]);

/** A deliverable check of an eval case. */
export type DeliverableCheck = z.infer<typeof deliverableCheckSchema>;

const limit = z.number().positive();

/** `expect.yaml`: how a case of an eval suite must end. Every field is optional; unknown fields are refused. */
export const expectSchema = z
  .object({
    /** How the run must end. @default 'completed' */
    finish_reason: z.enum(STOP_REASONS).default('completed'),
    /** Whether Verify must have passed. @default true when finish_reason is completed */
    verified: z.boolean().optional(),
    /** Checks on the files the run left under `progress/`. */
    checks: z.array(deliverableCheckSchema).default([]),
    /** Limits the run must stay within. */
    budgets: z
      .object({
        max_tokens: limit.optional(),
        max_cost_usd: limit.optional(),
        max_steps: limit.optional(),
        max_wall_ms: limit.optional(),
      })
      .strict()
      .default({}),
    /** How many approvals the run must have asked for (each is granted automatically). */
    approvals: z.number().int().nonnegative().optional(),
  })
  .strict();

/** A parsed `expect.yaml`. */
export type Expectation = z.infer<typeof expectSchema>;

/**
 * Reads and checks a case's `expect.yaml`.
 * @throws AgencyError `invalid_config` naming the file and each bad field, or saying the file is missing.
 */
export async function readExpectation(file: string): Promise<Expectation> {
  let raw: string;
  try {
    raw = await readFile(file, 'utf8');
  } catch (cause) {
    throw new AgencyError(
      'invalid_config',
      `${file} is missing: every case of an eval suite needs one (an empty file expects a completed, verified run)`,
      { cause, details: { file } },
    );
  }
  let value: unknown;
  try {
    value = parseYaml(raw) ?? {};
  } catch (cause) {
    throw new AgencyError('invalid_config', `${file} is not valid YAML (${(cause as Error).message})`, {
      cause,
      details: { file },
    });
  }
  return parseContractFile(file, JSON.stringify(value), expectSchema, 'invalid_config');
}
