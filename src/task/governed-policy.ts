import type { Processor } from '../agent/processors.ts';
import { canonicalDigest } from '../core/canonical-json.ts';
import type { Policy } from '../policy/create-policy.ts';
import { policyProcessor } from '../policy/policy-processor.ts';
import type { ToolRegistry } from '../tools/tool-registry.ts';
import { askApproval } from './approval-flow.ts';
import type { Session } from './session.ts';
import type { StepGate } from './tool-gate.ts';

/**
 * A policy enforced inside a governed run: approvals it requires become approval requests through the run's broker
 * (files a human decides, or auto mode), and every denial or change is journaled as `policy.blocked` or
 * `policy.modified` with the rule id, never the content.
 */
export function governedPolicy(
  session: Session,
  policy: Policy,
  tools: ToolRegistry,
  current: () => StepGate | undefined,
): Processor {
  return policyProcessor(policy, {
    tools: tools.list(),
    onAudit: (event) =>
      session.emit({
        type: event.type,
        ...(current()?.step ? { step: current()?.step } : {}),
        message: `${event.ruleId}: ${event.reason}`,
        data: { rule_id: event.ruleId, kind: event.kind, target: event.target, reason: event.reason },
      }),
    onApproval: async (request) => {
      const gate = current();
      const outcome = await askApproval(session, gate?.step ?? 'policy', {
        type: 'tool',
        toolName: request.tool ?? request.stage,
        toolArgs: request.input ?? null,
        argsDigest: canonicalDigest(request.input ?? null),
        toolCallId: request.toolCallId ?? '',
        planSig: gate?.planSig ?? null,
        rationale: `${request.ruleId}: ${request.reason}`,
      });
      return { decision: outcome.decision, ...(outcome.reason ? { reason: outcome.reason } : {}) };
    },
  });
}
