import type { ToolEffect } from '../core/tool-types.ts';
import { type NamePatterns, nameMatcher } from './glob.ts';
import type { PolicyRequest, PolicyRule } from './policy-types.ts';

/**
 * Denies every tool call whose tool name matches none of `patterns` (`fs_*` style globs).
 *
 * @example
 * toolAllowlist(['fs_read', 'file_glob', 'http_fetch'])
 */
export function toolAllowlist(patterns: NamePatterns, { id = 'tool-allowlist' }: { id?: string } = {}): PolicyRule {
  const allowed = nameMatcher(patterns);
  return {
    id,
    check: (request) =>
      request.kind === 'tool-call' && !allowed(request.tool.name)
        ? { effect: 'deny', reason: `tool "${request.tool.name}" is not in the allowlist` }
        : undefined,
  };
}

/**
 * Denies every tool call whose tool name matches one of `patterns` (`fs_*` style globs).
 *
 * @example
 * toolDenylist(['sandbox_exec', 'mcp_*_delete'])
 */
export function toolDenylist(patterns: NamePatterns, { id = 'tool-denylist' }: { id?: string } = {}): PolicyRule {
  const denied = nameMatcher(patterns);
  return {
    id,
    check: (request) =>
      request.kind === 'tool-call' && denied(request.tool.name)
        ? { effect: 'deny', reason: `tool "${request.tool.name}" is denied by policy` }
        : undefined,
  };
}

/** Which tool calls {@link requireApprovalFor} gates. */
export type ApprovalScope = {
  /** Tool names or globs. */
  tools?: NamePatterns;
  /** Tools with any of these effects. */
  effects?: readonly ToolEffect[];
  /** Skips approval for calls this returns true for, e.g. a POST to an allowlisted domain. */
  unless?(request: Extract<PolicyRequest, { kind: 'tool-call' }>): boolean;
  /** @default 'require-approval' */
  id?: string;
};

/**
 * Sends matching tool calls for human approval: by name (a list of names or globs) or by effect.
 *
 * @example
 * requireApprovalFor(['sandbox_exec', 'http_post'])
 * requireApprovalFor({ id: 'approve-side-effects', effects: ['exec', 'network'] })
 */
export function requireApprovalFor(scope: NamePatterns | ApprovalScope): PolicyRule {
  const options: ApprovalScope = isPatterns(scope) ? { tools: scope } : scope;
  const { tools, effects = [], unless, id = 'require-approval' } = options;
  const named = tools === undefined ? () => false : nameMatcher(tools);
  return {
    id,
    check(request) {
      if (request.kind !== 'tool-call') return undefined;
      const { name, effects: effect } = request.tool;
      const byName = named(name);
      if (!byName && !effects.includes(effect)) return undefined;
      if (unless?.(request)) return undefined;
      const why = byName ? `tool "${name}" requires approval` : `tools with "${effect}" effects require approval`;
      return { effect: 'require-approval', reason: why };
    },
  };
}

/**
 * Requires approval of every plan before it is acted on (seed 000's `RequirePlan`).
 *
 * @example
 * requirePlanApproval()
 */
export function requirePlanApproval({ id = 'plan-approval' }: { id?: string } = {}): PolicyRule {
  return {
    id,
    check: (request) =>
      request.kind === 'plan' ? { effect: 'require-approval', reason: 'plans require approval' } : undefined,
  };
}

function isPatterns(scope: NamePatterns | ApprovalScope): scope is NamePatterns {
  return typeof scope === 'string' || Array.isArray(scope);
}
