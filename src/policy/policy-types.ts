import type { Message } from '../core/messages.ts';
import type { ToolEffect } from '../core/tool-types.ts';

/** The tool a request is about: its name and what it does to the world. */
export type PolicyTool = { name: string; effects: ToolEffect };

/**
 * What the policy is asked about. Each kind has one payload that rules may replace: `input` for a tool call,
 * `output` for a tool's output (as the model will see it), `messages` for model input, `entry` for a memory write,
 * `plan` for a plan.
 */
export type PolicyRequest =
  | { kind: 'tool-call'; tool: PolicyTool; input: unknown }
  | { kind: 'tool-output'; tool: PolicyTool; input?: unknown; output: unknown }
  | { kind: 'model-input'; messages: readonly Message[] }
  | { kind: 'memory-write'; scope: string; entry: unknown }
  | { kind: 'plan'; plan: unknown };

/** The kinds of {@link PolicyRequest}. */
export type PolicyRequestKind = PolicyRequest['kind'];

/**
 * The policy's answer. `modify` carries the replacement payload in `patch` and the ids of every rule that changed
 * it in `modifiedBy`; `require-approval` carries a `patch` too when rules changed the payload, to apply once the
 * call is approved.
 */
export type PolicyDecision =
  | { outcome: 'allow' }
  | { outcome: 'deny'; reason: string; ruleId: string }
  | { outcome: 'require-approval'; reason: string; ruleId: string; patch?: unknown; modifiedBy?: string[] }
  | { outcome: 'modify'; patch: unknown; reason: string; ruleId: string; modifiedBy: string[] };

/** What one rule says about one request. A rule that has nothing to say returns `undefined`. */
export type RuleVerdict =
  | { effect: 'deny'; reason: string }
  | { effect: 'require-approval'; reason: string }
  | { effect: 'modify'; patch: unknown; reason: string };

/**
 * One policy rule. `check` must be a pure function of the request and the rule's own state; `commit` is called only
 * when the request goes ahead (allowed or modified, or approved), which is where a rate limit takes its token.
 */
export type PolicyRule = {
  readonly id: string;
  check(request: PolicyRequest): RuleVerdict | undefined;
  commit?(request: PolicyRequest): void;
};

/**
 * An audit record of a denial or a change. `target` is the tool name, `model-input`, `memory:<scope>` or `plan`.
 * It never carries the payload, only the rule's reason.
 */
export type PolicyAuditEvent = {
  type: 'policy.blocked' | 'policy.modified';
  ruleId: string;
  kind: PolicyRequestKind;
  target: string;
  reason: string;
  /** ISO 8601. */
  at: string;
};

/** Receives audit events; the task runner journals them. */
export type AuditSink = (event: PolicyAuditEvent) => void;

/** The payload of a request: what a `modify` patch replaces. */
export function payloadOf(request: PolicyRequest): unknown {
  switch (request.kind) {
    case 'tool-call':
      return request.input;
    case 'tool-output':
      return request.output;
    case 'model-input':
      return request.messages;
    case 'memory-write':
      return request.entry;
    case 'plan':
      return request.plan;
  }
}

/** The request with its payload replaced by `patch`. */
export function withPayload(request: PolicyRequest, patch: unknown): PolicyRequest {
  switch (request.kind) {
    case 'tool-call':
      return { ...request, input: patch };
    case 'tool-output':
      return { ...request, output: patch };
    case 'model-input':
      return { ...request, messages: patch as Message[] };
    case 'memory-write':
      return { ...request, entry: patch };
    case 'plan':
      return { ...request, plan: patch };
  }
}

/** What an audit event names as the target of a request. */
export function targetOf(request: PolicyRequest): string {
  switch (request.kind) {
    case 'tool-call':
    case 'tool-output':
      return request.tool.name;
    case 'model-input':
      return 'model-input';
    case 'memory-write':
      return `memory:${request.scope}`;
    case 'plan':
      return 'plan';
  }
}
