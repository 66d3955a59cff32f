import { canonicalDigest } from '../core/canonical-json.ts';
import { defaultRedactor, type Redactor } from '../core/redact.ts';
import { createPolicy, type Policy } from '../policy/create-policy.ts';
import { type PolicyProcessor, policyProcessor } from '../policy/policy-processor.ts';
import type { AuditSink, PolicyRule } from '../policy/policy-types.ts';
import { requireApprovalFor, requirePlanApproval } from '../policy/tool-rules.ts';
import type { ToolRegistry } from '../tools/tool-registry.ts';
import { askApproval } from './approval-flow.ts';
import type { SpecFile } from './contracts/spec.ts';
import type { Session } from './session.ts';

/** The name of the runner's own tool that asks for a new plan; see {@link governedPolicy}. */
export const REPLAN_TOOL = 'request_replan';

/** Where a policy decision is made: the step, and the plan it runs under. */
export type PolicySite = { step: string; planSig: string | null };

/**
 * The spec's approval settings as rules of the run's policy: `require_plan` becomes `requirePlanApproval()` (id
 * `spec:require-plan`) and `require_tools` becomes `requireApprovalFor(tools)` (id `spec:require-tools`).
 *
 * @example
 * specApprovalRules({ mode: 'file', require_plan: true, require_tools: ['fs_write'], expires_in_ms: 60_000 })
 */
export function specApprovalRules(approvals: SpecFile['approvals']): PolicyRule[] {
  const rules: PolicyRule[] = [];
  if (approvals.require_plan) rules.push(requirePlanApproval({ id: 'spec:require-plan' }));
  if (approvals.require_tools.length > 0)
    rules.push(requireApprovalFor({ id: 'spec:require-tools', tools: approvals.require_tools }));
  return rules;
}

/**
 * The one policy a governed run is held to: the operator's policy (none: no rules) with the spec's approval rules
 * added after its own. Deny beats approval and approval beats allow, whichever side a rule comes from.
 *
 * @example
 * const policy = runPolicyFor(session.spec, strictPolicy(), { redactor: defaultRedactor, now: Date.now });
 */
export function runPolicyFor(
  spec: SpecFile,
  operator: Policy | undefined,
  { redactor = defaultRedactor, now = Date.now }: { redactor?: Redactor | undefined; now?: () => number } = {},
): Policy {
  return (operator ?? createPolicy({ rules: [], redactor, now })).extend(specApprovalRules(spec.approvals));
}

/** Journals the policy's audit events as `policy.blocked` and `policy.modified`, with the rule id, never the content. */
export function journalAudit(session: Session, step?: string): AuditSink {
  return (event) =>
    session.emit({
      type: event.type,
      ...(step ? { step } : {}),
      message: `${event.ruleId}: ${event.reason}`,
      data: { rule_id: event.ruleId, kind: event.kind, target: event.target, reason: event.reason },
    });
}

/**
 * A policy enforced on the tool calls of a governed run: approvals it requires become approval requests through the
 * run's broker (files a human decides, or auto mode), and every denial or change is journaled as `policy.blocked` or
 * `policy.modified`. The runner's own `request_replan` is not a tool call on the world and is not evaluated: the new
 * plan it leads to is.
 */
export function governedPolicy(
  session: Session,
  policy: Policy,
  tools: ToolRegistry,
  current: () => PolicySite | undefined,
): PolicyProcessor {
  // The approval request shows redacted arguments; its digest binds the decision to the real ones.
  const realInputs = new Map<string, unknown>();
  const processor = policyProcessor(policy, {
    tools: tools.list(),
    onAudit: (event) => journalAudit(session, current()?.step)(event),
    onApproval: async (request) => {
      const site = current();
      const outcome = await askApproval(session, site?.step ?? 'policy', {
        type: 'tool',
        toolName: request.tool ?? request.stage,
        toolArgs: request.input ?? null,
        argsDigest: canonicalDigest(realInputs.get(request.toolCallId ?? '') ?? request.input ?? null),
        toolCallId: request.toolCallId ?? '',
        planSig: site?.planSig ?? null,
        rationale: `${request.ruleId}: ${request.reason}`,
      });
      return { decision: outcome.decision, ...(outcome.reason ? { reason: outcome.reason } : {}) };
    },
  });
  return {
    ...processor,
    preTool: async (context) => {
      const { call } = context;
      if (call.toolName === REPLAN_TOOL) return undefined;
      realInputs.set(call.toolCallId, call.input);
      try {
        return await processor.preTool(context);
      } finally {
        realInputs.delete(call.toolCallId);
      }
    },
  };
}
