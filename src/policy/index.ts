// The policy engine: rules, presets, and the processor that enforces a policy in the agent loop. See docs/policy.md.
export { type ContentFilterOptions, type ContentStage, contentFilter, memoryWriteFilter } from './content-filter.ts';
export { createPolicy, type EvaluateOptions, type Policy, type PolicyOptions } from './create-policy.ts';
export { type DomainAllowlistOptions, domainAllowlist } from './domain-allowlist.ts';
export { type CheckedMemoryEntry, type PolicyMemoryCheckOptions, policyMemoryCheck } from './memory-check.ts';
export {
  type ApprovalAnswer,
  type ApprovalRequest as PolicyApprovalRequest,
  type PolicyProcessor,
  type PolicyProcessorOptions,
  policyProcessor,
} from './policy-processor.ts';
export type {
  AuditSink,
  PolicyAuditEvent,
  PolicyDecision,
  PolicyRequest,
  PolicyRequestKind,
  PolicyRule,
  PolicyTool,
  RuleVerdict,
} from './policy-types.ts';
export {
  permissivePolicy,
  STORE_TOOLS,
  STRICT_APPROVAL_TOOLS,
  type StrictPolicyOptions,
  strictPolicy,
} from './presets.ts';
export { type RateLimitOptions, rateLimit } from './rate-limit.ts';
export {
  type ApprovalScope,
  requireApprovalFor,
  requirePlanApproval,
  toolAllowlist,
  toolDenylist,
} from './tool-rules.ts';
export { type WriteScopeOptions, writeScope } from './write-scope.ts';
