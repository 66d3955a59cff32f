import { canonicalJson } from '../../core/canonical-json.ts';
import {
  type ApprovalDecision,
  type ApprovalRequest,
  approvalDecisionSchema,
  DECISIONS,
} from '../contracts/approvals.ts';
import type { ApprovalOutcome } from './broker.ts';

/** The result of checking a decision against its request: the decision, or a problem a human can act on. */
export type DecisionCheck = { ok: true; decision: ApprovalDecision } | { ok: false; problem: string };

const FIELDS = ['id', 'decision', 'approved_by', 'timestamp', 'plan_sig', 'args_digest', 'reason'];

/**
 * Checks the text of a decision file. Bad JSON, a partial file, a wrong id, an unknown decision, an empty
 * `approved_by`, a missing or wrong `plan_sig` (plans) or `args_digest` (tools), and a decision for a request that
 * does not exist are all refused, with every problem found spelled out.
 *
 * @example
 * const check = checkDecisionText(text, 'req_01J…', request);
 * if (!check.ok) console.error(`progress/approvals/decisions/req_01J….json: ${check.problem}`);
 */
export function checkDecisionText(text: string, id: string, request: ApprovalRequest | undefined): DecisionCheck {
  if (text.trim() === '') return { ok: false, problem: 'the file is empty (a writer may still be writing it)' };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (cause) {
    const detail = cause instanceof Error ? cause.message : String(cause);
    return {
      ok: false,
      problem: `not valid JSON (${detail}); the file is truncated or a writer is still writing it`,
    };
  }
  return checkDecision(value, id, request);
}

/** Checks a parsed decision against the request it decides. See {@link checkDecisionText}. */
export function checkDecision(value: unknown, id: string, request: ApprovalRequest | undefined): DecisionCheck {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { ok: false, problem: 'must be a JSON object with id, decision, approved_by and timestamp' };
  }
  const record = value as Record<string, unknown>;
  const problems = [...shapeProblems(record, id)];
  if (request === undefined) {
    problems.push(`no request ${id} exists (approvals/requests/${id}.json is missing), so there is nothing to decide`);
  } else {
    problems.push(...bindingProblems(record, request));
  }
  const parsed = approvalDecisionSchema.safeParse(record);
  if (problems.length === 0 && !parsed.success) {
    for (const issue of parsed.error.issues) problems.push(`"${issue.path.join('.')}" ${issue.message}`);
  }
  if (problems.length > 0 || !parsed.success) return { ok: false, problem: problems.join('; ') };
  return { ok: true, decision: parsed.data };
}

/** The outcome a broker resolves with for a valid decision. */
export function toOutcome(decision: ApprovalDecision): ApprovalOutcome {
  return {
    decision: decision.decision,
    decidedBy: decision.approved_by,
    at: decision.timestamp,
    ...(decision.reason === undefined ? {} : { reason: decision.reason }),
  };
}

/** True when two decisions are the same record (field order and formatting aside). */
export function sameDecision(a: ApprovalDecision, b: ApprovalDecision): boolean {
  return canonicalJson(a) === canonicalJson(b);
}

/** The `plan_sig` and `args_digest` a decision on this request must carry. */
export function bindingOf(request: ApprovalRequest): Pick<ApprovalDecision, 'plan_sig' | 'args_digest'> {
  if (request.type === 'plan') return { plan_sig: request.plan_sig };
  return {
    args_digest: request.args_digest,
    ...(request.plan_sig === null ? {} : { plan_sig: request.plan_sig }),
  };
}

/** The problem to report when a second, different decision arrives after one was acted on. */
export function conflictProblem(first: ApprovalDecision): string {
  return (
    `conflicting decision: ${first.id} was already ${first.decision} by ${first.approved_by} at ` +
    `${first.timestamp}; the first decision stands and this one is ignored`
  );
}

function shapeProblems(record: Record<string, unknown>, id: string): string[] {
  const problems: string[] = [];
  const { decision, approved_by: by, timestamp, reason } = record;
  if (record.id === undefined) problems.push(`"id" is missing; it must be "${id}"`);
  else if (record.id !== id) {
    problems.push(`"id" is ${JSON.stringify(record.id)} but this file decides ${id}; the id must match the file name`);
  }
  if (typeof decision !== 'string' || !(DECISIONS as readonly string[]).includes(decision)) {
    const got = decision === undefined ? 'it is missing' : `got ${JSON.stringify(decision)}`;
    problems.push(`"decision" must be ${DECISIONS.join('|')} (${got})`);
  }
  if (typeof by !== 'string' || by.trim() === '') {
    problems.push('"approved_by" must name who decided (a non-empty string such as an email address)');
  }
  if (!approvalDecisionSchema.shape.timestamp.safeParse(timestamp).success) {
    problems.push('"timestamp" must be an ISO 8601 UTC date-time such as 2025-01-01T12:05:00Z');
  }
  if (reason !== undefined && typeof reason !== 'string') problems.push('"reason" must be a string when present');
  for (const key of Object.keys(record)) {
    if (!FIELDS.includes(key)) problems.push(`unknown field "${key}"; allowed fields are ${FIELDS.join(', ')}`);
  }
  return problems;
}

function bindingProblems(record: Record<string, unknown>, request: ApprovalRequest): string[] {
  const { plan_sig: planSig, args_digest: argsDigest } = record;
  const problems: string[] = [];
  if (request.type === 'plan') {
    if (planSig === undefined) {
      problems.push(
        `"plan_sig" is missing: a plan decision must carry the signature of the plan it decides ` +
          `(${request.plan_sig}, from the request); copy it from the request or use \`agency approve\``,
      );
    } else if (planSig !== request.plan_sig) {
      problems.push(
        `plan_sig ${short(planSig)} does not match the current plan (${short(request.plan_sig)}): the plan changed ` +
          `after you read it; review ${request.plan_path} and decide again`,
      );
    }
    if (argsDigest !== undefined)
      problems.push('"args_digest" belongs to tool requests; remove it from a plan decision');
    return problems;
  }
  if (argsDigest === undefined) {
    problems.push(
      `"args_digest" is missing: a tool decision must carry the digest of the arguments it decides ` +
        `(${request.args_digest}, from the request); copy it from the request or use \`agency approve\``,
    );
  } else if (argsDigest !== request.args_digest) {
    problems.push(
      `args_digest ${short(argsDigest)} does not match this ${request.tool_name} call's arguments ` +
        `(${short(request.args_digest)}): the arguments changed after you read them; review the request and decide again`,
    );
  }
  if (planSig !== undefined && request.plan_sig === null) {
    problems.push('"plan_sig" must be absent: this tool call does not run under a signed plan');
  } else if (planSig !== undefined && planSig !== request.plan_sig) {
    problems.push(
      `plan_sig ${short(planSig)} does not match the plan this tool call runs under (${short(request.plan_sig ?? '')}); ` +
        'the plan changed; review the request and decide again',
    );
  }
  return problems;
}

function short(value: unknown): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return text.length > 12 ? `${text.slice(0, 8)}…` : text;
}
