import { z } from 'zod';
import { AgencyError } from '../core/errors.ts';
import { OPERATOR_POLICIES } from '../policy/presets.ts';
import type { Budgets } from '../task/task-spec.ts';

/**
 * The tools of agency's built-in catalogue (docs/tools.md) a role may name. A governed run gets those of them its
 * settings allow (no network tools offline, no `test_runner` without a test command).
 */
export const BUILTIN_TOOL_NAMES = [
  'file_glob',
  'fs_read',
  'fs_write',
  'http_fetch',
  'http_post',
  'json_validate',
  'kv',
  'links_check',
  'sandbox_exec',
  'sql',
  'test_runner',
] as const;

/** A name from {@link BUILTIN_TOOL_NAMES}. */
export type BuiltinToolName = (typeof BUILTIN_TOOL_NAMES)[number];

/** A role's name: a file name under `roles/` without a directory, so it cannot point anywhere else. */
export const roleNameSchema = z
  .string()
  .regex(/^[a-z][a-z0-9_-]{0,62}$/, 'must be lowercase letters, digits, "-" and "_" (up to 63), e.g. researcher');

const toolNameSchema = z.enum(BUILTIN_TOOL_NAMES, {
  error: (issue) =>
    `unknown tool ${JSON.stringify(issue.input)?.slice(0, 80)}; the built-in tools are ${BUILTIN_TOOL_NAMES.join(', ')}`,
});

/** A role: who the agent is (persona), what it works with (tools, memory), under which policy, within which budgets. */
export type Role = {
  name: string;
  /** What the role is for, one line. */
  description: string;
  /** The system prompt of its runs. */
  persona: string;
  /** The built-in tools it works with; absent, the run's default tools. */
  tools?: BuiltinToolName[];
  /** Its memory preset: the channel its learnings are written to and recalled from (with a memory store). */
  memory?: { channel: string };
  /** Its policy preset. */
  policy?: (typeof OPERATOR_POLICIES)[number];
  /** Its budgets, under any the run is given explicitly. */
  budgets?: Pick<Budgets, 'maxIterations' | 'maxTotalTokens' | 'maxCostUsd' | 'maxWallClockMs'>;
};

const positive = z.number().positive();

/** The schema of a {@link Role} in code. */
export const roleSchema = z
  .object({
    name: roleNameSchema,
    description: z.string().trim().min(1, 'must say what the role is for').max(500),
    persona: z.string().trim().min(1, 'must be the system prompt of the role').max(20_000),
    tools: z.array(toolNameSchema).max(BUILTIN_TOOL_NAMES.length).optional(),
    memory: z
      .object({ channel: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,62}$/) })
      .strict()
      .optional(),
    policy: z.enum(OPERATOR_POLICIES).optional(),
    budgets: z
      .object({
        maxIterations: z.int().positive().optional(),
        maxTotalTokens: z.int().positive().optional(),
        maxCostUsd: positive.optional(),
        maxWallClockMs: z.int().positive().optional(),
      })
      .strict()
      .optional(),
  })
  .strict();

/**
 * Declares a role in code.
 * @throws AgencyError `invalid_argument` naming each bad field.
 * @example
 * const analyst = defineRole({ name: 'analyst', description: 'Reads data', persona: 'You are…', tools: ['fs_read'] });
 */
export function defineRole(role: Role): Role {
  const parsed = roleSchema.safeParse(role);
  if (parsed.success) return Object.freeze(parsed.data) as Role;
  const name = typeof role?.name === 'string' ? role.name.slice(0, 64) : '(unnamed)';
  const problems = parsed.error.issues.map((issue) => `"${issue.path.join('.') || '(role)'}" ${issue.message}`);
  throw new AgencyError('invalid_argument', `Role "${name}": ${problems.join('; ')}`);
}
