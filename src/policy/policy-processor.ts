import type { JsonValue, Message, ToolCallPart, ToolResultOutput } from '../core/messages.ts';
import { defaultRedactor, type Redactor } from '../core/redact.ts';
import type { ToolCallOutcome, ToolEffect } from '../core/tool-types.ts';
import type { Policy } from './create-policy.ts';
import type { AuditSink, PolicyDecision, PolicyRequest } from './policy-types.ts';

/** What a human is asked to approve; it is the payload of the run's suspension. Arguments are redacted. */
export type ApprovalRequest = {
  kind: 'approval';
  stage: 'tool-call' | 'tool-output' | 'model-input';
  tool?: string;
  toolCallId?: string;
  input?: JsonValue;
  reason: string;
  ruleId: string;
};

/**
 * An approval decision: `true`, `'approved'`, `{ approved: true }` or `{ decision: 'approved' }` approve; anything
 * else denies, with `reason` when given. It is what `onApproval` returns and what `resume()` is called with.
 */
export type ApprovalAnswer =
  boolean | 'approved' | 'denied' | { approved: boolean; reason?: string } | { decision: string; reason?: string };

/** Options for {@link policyProcessor}. */
export type PolicyProcessorOptions = {
  /** Receives the audit events of the evaluations this processor makes, and approval denials. */
  onAudit?: AuditSink;
  /** Decides approvals in-process; without it the run suspends with an {@link ApprovalRequest}. */
  onApproval?(request: ApprovalRequest): ApprovalAnswer | Promise<ApprovalAnswer>;
  /** The agent's tools, so rules see their effects. A tool not listed is treated as `exec`, the most guarded. */
  tools?: Iterable<{ name: string; effects: ToolEffect }>;
  /** Redacts arguments shown in approval requests. @default defaultRedactor */
  redactor?: Redactor;
  /** The clock for approval-denial audit events. @default Date.now */
  now?: () => number;
};

type Hook = { resumeData?: JsonValue | undefined };
type Pending = { suspend: JsonValue };
// undefined = go ahead unchanged, { patch } = go ahead changed, { deny } = refuse, or suspend.
type Settled = { patch: unknown } | { deny: string } | Pending | undefined;
type ApprovalFields = Omit<ApprovalRequest, 'kind' | 'reason' | 'ruleId'>;

type Settler = {
  policy: Policy;
  audited: { onAudit?: AuditSink };
  onAudit: AuditSink | undefined;
  onApproval: PolicyProcessorOptions['onApproval'];
  redactor: Redactor;
  now: () => number;
};

/**
 * An agency `Processor` (structurally; pass it in `processors`) that enforces a policy in the agent loop. It is
 * declared here rather than imported so that `policy/` does not depend on `agent/`.
 */
export type PolicyProcessor = {
  name: string;
  pre(
    context: Hook & { messages: readonly Message[] },
  ): Promise<{ messages: Message[] } | { halt: string } | Pending | undefined>;
  preTool(
    context: Hook & { call: ToolCallPart },
  ): Promise<{ call: ToolCallPart } | { block: string } | Pending | undefined>;
  postTool(
    context: Hook & { call: ToolCallPart; outcome: ToolCallOutcome },
  ): Promise<{ outcome: ToolCallOutcome } | Pending | undefined>;
};

/**
 * Enforces `policy` in an agent loop. `preTool` evaluates each call: deny blocks it (the model gets an error result),
 * require-approval asks `onApproval` or suspends the run with an {@link ApprovalRequest} (resume it with an
 * {@link ApprovalAnswer}), modify changes its arguments. `postTool` applies output filters to what the model sees,
 * and `pre` applies model-input filters to the history (a denial halts the run).
 *
 * @example
 * const agent = new LLMAgent({ name: 'ops', model, tools, processors: [policyProcessor(strictPolicy(), { tools, onAudit })] });
 */
export function policyProcessor(policy: Policy, options: PolicyProcessorOptions = {}): PolicyProcessor {
  const { onAudit, onApproval, redactor = defaultRedactor, now = Date.now } = options;
  const effects = new Map<string, ToolEffect>();
  for (const tool of options.tools ?? []) effects.set(tool.name, tool.effects);
  const audited = onAudit ? { onAudit } : {};
  const toolOf = (name: string) => ({ name, effects: effects.get(name) ?? ('exec' as const) });
  const settler: Settler = { policy, audited, onAudit, onApproval, redactor, now };

  return {
    name: 'policy',
    async pre({ messages, resumeData }) {
      const settled = await settle(settler, { kind: 'model-input', messages }, resumeData, { stage: 'model-input' });
      if (!settled || 'suspend' in settled) return settled;
      if ('deny' in settled) return { halt: `The request was blocked by policy: ${settled.deny}` };
      return { messages: settled.patch as Message[] };
    },
    async preTool({ call, resumeData }) {
      const request: PolicyRequest = { kind: 'tool-call', tool: toolOf(call.toolName), input: call.input };
      const settled = await settle(settler, request, resumeData, {
        stage: 'tool-call',
        tool: call.toolName,
        toolCallId: call.toolCallId,
        input: redactor.redact(call.input ?? null) as JsonValue,
      });
      if (!settled || 'suspend' in settled) return settled;
      if ('deny' in settled) return { block: settled.deny };
      return { call: { ...call, input: settled.patch } };
    },
    async postTool({ call, outcome, resumeData }) {
      const request: PolicyRequest = {
        kind: 'tool-output',
        tool: toolOf(call.toolName),
        input: call.input,
        output: outcome.modelOutput,
      };
      const settled = await settle(settler, request, resumeData, {
        stage: 'tool-output',
        tool: call.toolName,
        toolCallId: call.toolCallId,
      });
      if (!settled || 'suspend' in settled) return settled;
      if ('deny' in settled) return { outcome: withheld(outcome, settled.deny) };
      return { outcome: { ...outcome, modelOutput: settled.patch as ToolResultOutput } };
    },
  };
}

// Evaluates a request, asking for approval when a rule requires it: `onApproval` in-process, else by suspending.
async function settle(
  settler: Settler,
  request: PolicyRequest,
  resumeData: JsonValue | undefined,
  approval: ApprovalFields,
): Promise<Settled> {
  if (resumeData !== undefined) return settleResumed(settler, request, resumeData);
  const { policy, audited, onApproval } = settler;
  const decision = policy.evaluate(request, audited);
  if (decision.outcome !== 'require-approval') return applied(decision);
  const asked: ApprovalRequest = { kind: 'approval', ...approval, reason: decision.reason, ruleId: decision.ruleId };
  if (!onApproval) return { suspend: asked as JsonValue };
  const answer = parseAnswer(await onApproval(asked));
  if (!answer.approved) return denyApproval(settler, request, decision.ruleId, answer.reason);
  return applied(policy.evaluate(request, { ...audited, approved: true }));
}

// A resumed run carries the answer to its suspension. A denial is audited under the rule that asked, found by a dry
// run, which takes no rate-limit token and emits no audit event for a call that will not go ahead.
function settleResumed(settler: Settler, request: PolicyRequest, resumeData: JsonValue): Settled {
  const { policy, audited } = settler;
  const answer = parseAnswer(resumeData);
  if (answer.approved) return applied(policy.evaluate(request, { ...audited, approved: true }));
  const decision = policy.evaluate(request, { dryRun: true });
  return denyApproval(
    settler,
    request,
    decision.outcome === 'require-approval' ? decision.ruleId : 'approval',
    answer.reason,
  );
}

function denyApproval(
  { onAudit, redactor, now }: Settler,
  request: PolicyRequest,
  ruleId: string,
  why: string | undefined,
): { deny: string } {
  const reason = redactor.redactText(why ? `approval denied: ${why}` : 'approval denied');
  const target = request.kind === 'tool-call' || request.kind === 'tool-output' ? request.tool.name : request.kind;
  onAudit?.({
    type: 'policy.blocked',
    ruleId,
    kind: request.kind,
    target,
    reason,
    at: new Date(now()).toISOString(),
  });
  return { deny: reason };
}

function applied(decision: PolicyDecision): { patch: unknown } | { deny: string } | undefined {
  if (decision.outcome === 'deny') return { deny: decision.reason };
  // Only reachable when an approved request is asked for approval again, which `approved: true` rules out.
  if (decision.outcome === 'require-approval') return { deny: decision.reason };
  if (decision.outcome === 'modify') return { patch: decision.patch };
  return undefined;
}

function withheld(outcome: ToolCallOutcome, reason: string): ToolCallOutcome {
  const message = `The output of tool "${outcome.toolName}" was withheld by policy: ${reason}`;
  const { output: _output, ...rest } = outcome;
  return {
    ...rest,
    ok: false,
    error: { code: 'policy_denied', message },
    modelOutput: { type: 'error-text', value: message },
  };
}

function parseAnswer(value: JsonValue): { approved: boolean; reason?: string } {
  if (value === true || value === 'approved') return { approved: true };
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { approved: false };
  const reason = typeof value.reason === 'string' ? value.reason : undefined;
  const approved = value.approved === true || value.decision === 'approved';
  return reason === undefined ? { approved } : { approved, reason };
}
