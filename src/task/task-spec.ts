import type { ErrorCode } from '../core/error-codes.ts';
import { AgencyError } from '../core/errors.ts';
import type { Message } from '../core/messages.ts';
import { HISTORY_POLICIES, SPEC_VERSION, type SpecFile, specSchema } from './contracts/spec.ts';
import type { BudgetLimits } from './contracts/state.ts';
import type { TaskFiles } from './fs/task-files.ts';

/** Budgets a run is held to. Every one is enforced; unset ones are unlimited. */
export type Budgets = {
  maxWallClockMs?: number;
  /** Model calls. */
  maxIterations?: number;
  /** Model calls in a row that each asked for tools. */
  maxConsecutiveToolIterations?: number;
  /** Timeout of each tool call. */
  toolTimeoutMs?: number;
  maxTotalTokens?: number;
  maxCostUsd?: number;
  /** Share (0–0.9) of the token, cost, step and time budgets held back for Verify. @default 0 */
  verifyReserve?: number;
};

/**
 * Approval settings of a run. `requirePlan` and `requireTools` are inputs to the run's one policy: they add the rules
 * `requirePlanApproval()` and `requireApprovalFor(requireTools)` next to the operator's (`createRunner({ policy })`),
 * so they can ask for more approvals but never lift an operator's rule or a denial.
 *
 * @example
 * runner.doTask('./my-task', { approvals: { mode: 'file', requirePlan: true, requireTools: ['http_post'] } })
 */
export type ApprovalPolicy = {
  /** `auto` approves everything but still writes request and decision files. @default 'file' */
  mode?: 'file' | 'auto';
  /** Adds the rule `spec:require-plan` (`requirePlanApproval()`): every plan needs approval. @default true */
  requirePlan?: boolean;
  /** Adds the rule `spec:require-tools` (`requireApprovalFor(requireTools)`): every call needs approval. @default [] */
  requireTools?: string[];
  /** How long a request waits before it expires. @default 86400000 (24 h) */
  expiresInMs?: number;
};

/** What a governed run is asked to do. */
export type TaskSpec = {
  /** @default the first heading's text, or the first paragraph, of `task/brief.md` */
  goal?: string;
  userId?: string;
  /** Recorded in spec.json so `resume` can rebuild the model; a model object passed to the runner wins. */
  model?: string;
  /** @default 'gather-plan-act-verify' */
  loop?: string;
  budgets?: Budgets;
  approvals?: ApprovalPolicy;
  history?: { policy?: (typeof HISTORY_POLICIES)[number]; lastN?: number; summaryMaxTokens?: number };
  seedMessages?: Message[];
  /** Allow one refine-and-retry when Verify fails and budget remains. @default true */
  refineOnVerifyFail?: boolean;
};

/** Turns a TaskSpec into the `spec.json` contract, filling defaults. */
export function toSpecFile(
  spec: TaskSpec,
  { taskId, goal, now }: { taskId: string; goal: string; now: number },
): SpecFile {
  const budgets = spec.budgets ?? {};
  const approvals = spec.approvals ?? {};
  return {
    version: SPEC_VERSION,
    task_id: taskId,
    goal: spec.goal ?? goal,
    user_id: spec.userId ?? null,
    model: spec.model ?? null,
    loop: spec.loop ?? 'gather-plan-act-verify',
    budgets: toBudgetLimits(budgets),
    approvals: {
      mode: approvals.mode ?? 'file',
      require_plan: approvals.requirePlan ?? true,
      require_tools: approvals.requireTools ?? [],
      expires_in_ms: approvals.expiresInMs ?? 24 * 3_600_000,
    },
    history: {
      policy: spec.history?.policy ?? 'seedOnly',
      last_n: spec.history?.lastN ?? 6,
      summary_max_tokens: spec.history?.summaryMaxTokens ?? 400,
    },
    seed_messages: spec.seedMessages ?? [],
    refine_on_verify_fail: spec.refineOnVerifyFail ?? true,
    created_at: new Date(now).toISOString(),
  };
}

/** The spec field each budget option sets. */
export const BUDGET_FIELDS = {
  maxWallClockMs: 'max_wall_clock_ms',
  maxIterations: 'max_iterations',
  maxConsecutiveToolIterations: 'max_consecutive_tool_iterations',
  toolTimeoutMs: 'tool_timeout_ms',
  maxTotalTokens: 'max_total_tokens',
  maxCostUsd: 'max_cost_usd',
  verifyReserve: 'verify_reserve',
} as const satisfies Record<keyof Budgets, keyof BudgetLimits>;

/** Budget limits as written to disk. */
export function toBudgetLimits(budgets: Budgets): BudgetLimits {
  return {
    max_wall_clock_ms: budgets.maxWallClockMs ?? null,
    max_iterations: budgets.maxIterations ?? null,
    max_consecutive_tool_iterations: budgets.maxConsecutiveToolIterations ?? null,
    tool_timeout_ms: budgets.toolTimeoutMs ?? null,
    max_total_tokens: budgets.maxTotalTokens ?? null,
    max_cost_usd: budgets.maxCostUsd ?? null,
    verify_reserve: budgets.verifyReserve ?? 0,
  };
}

/**
 * Reads and validates `progress/spec.json`.
 * @throws AgencyError `state_corrupt` naming the file and each bad field.
 */
export async function readSpecFile(files: TaskFiles, path: string): Promise<SpecFile> {
  const raw = await files.readText(path);
  if (raw === undefined) {
    throw new AgencyError(
      'state_corrupt',
      `${path} is missing: this run was never started here, so there is nothing to resume`,
    );
  }
  return parseContractFile(path, raw, specSchema);
}

/**
 * Parses a JSON contract or config file, with an error naming the file and every bad field.
 *
 * @throws AgencyError `code` (@default `state_corrupt`) naming the file and each bad field.
 * @example
 * parseContractFile('task/agency.json', raw, taskConfigSchema, 'invalid_config')
 */
export function parseContractFile<T>(
  path: string,
  raw: string,
  schema: {
    safeParse(
      value: unknown,
    ):
      | { success: true; data: T }
      | { success: false; error: { issues: Array<{ path: PropertyKey[]; message: string }> } };
  },
  code: ErrorCode = 'state_corrupt',
): T {
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch (cause) {
    throw new AgencyError(code, `${path} is not valid JSON (${(cause as Error).message})`, {
      cause,
      details: { file: path },
    });
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) {
    const issues = parsed.error.issues.map(
      (issue) => `"${issue.path.map(String).join('.') || '(file)'}" ${issue.message}`,
    );
    throw new AgencyError(code, `${path}: ${issues.join('; ')}`, { details: { file: path } });
  }
  return parsed.data;
}

/** The goal of a brief: its first heading's text or first paragraph, trimmed to one line. */
export function goalFromBrief(brief: string): string {
  const lines = brief.split('\n').map((line) => line.trim());
  const body = lines.filter((line) => line !== '' && !line.startsWith('#'));
  const first = body[0] ?? lines.find((line) => line.startsWith('#'))?.replace(/^#+\s*/, '') ?? '';
  if (first === '')
    throw new AgencyError('task_folder_invalid', 'task/brief.md is empty: write the goal of the task in it');
  return first.length > 500 ? `${first.slice(0, 497)}…` : first;
}
