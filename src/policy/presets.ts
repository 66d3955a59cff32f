import { type Policy, type PolicyOptions, createPolicy } from './create-policy.ts';
import { domainAllowlist } from './domain-allowlist.ts';
import type { NamePatterns } from './glob.ts';
import { requireApprovalFor, requirePlanApproval } from './tool-rules.ts';
import { writeScope } from './write-scope.ts';

/** The policies an operator can run `agency run` under; docs/cli.md describes each. */
export const OPERATOR_POLICIES = ['default', 'strict', 'permissive'] as const;

/** One of {@link OPERATOR_POLICIES}. */
export type OperatorPolicyName = (typeof OPERATOR_POLICIES)[number];

/** Options for {@link strictPolicy}: the policy options without rules, plus the scopes to enforce. */
export type StrictPolicyOptions = Omit<PolicyOptions, 'rules'> & {
  /** Where write tools may write. @default ['progress'] */
  writePaths?: readonly string[];
  /** When set, network tools may reach only these hosts (they still need approval). */
  domains?: readonly string[];
  /** Write tools outside the write scope because they write to a configured store, not a path. @default STORE_TOOLS */
  storeTools?: NamePatterns;
};

/** The built-in tools that write to a store the harness configured (a key-value store, a database), not to a path. */
export const STORE_TOOLS = Object.freeze(['kv', 'sql']);

/** The tools seed 000's strict approvals name. */
export const STRICT_APPROVAL_TOOLS = Object.freeze(['sandbox_exec', 'http_post', 'fs_write']);

/**
 * Seed 000's strict profile: every plan needs approval; `sandbox_exec`, `http_post` and `fs_write` need approval
 * on every call; so does any other tool with `exec` or `network` effects; write tools may write only under
 * `progress/`, except the store tools (`kv`, `sql`), whose scope is the store they were given; and with `domains`,
 * network tools may reach only those hosts. Read tools run freely.
 *
 * @example
 * const policy = strictPolicy({ onAudit: (event) => journal.append(event), domains: ['api.github.com'] });
 */
export function strictPolicy({
  writePaths = ['progress'],
  domains,
  storeTools = STORE_TOOLS,
  ...options
}: StrictPolicyOptions = {}): Policy {
  return createPolicy({
    ...options,
    rules: [
      ...(domains === undefined ? [] : [domainAllowlist({ domains })]),
      writeScope({ paths: writePaths, except: storeTools }),
      requirePlanApproval(),
      requireApprovalFor({ id: 'approval:named-tools', tools: STRICT_APPROVAL_TOOLS }),
      requireApprovalFor({ id: 'approval:effects', effects: ['exec', 'network'] }),
    ],
  });
}

/**
 * No rules: every request is allowed and nothing is audited. The tools' own guards (path scope, network guard,
 * sandbox) still apply. For development and trusted automation.
 *
 * @example
 * const policy = permissivePolicy();
 */
export function permissivePolicy(options: Omit<PolicyOptions, 'rules'> = {}): Policy {
  return createPolicy({ ...options, rules: [] });
}
