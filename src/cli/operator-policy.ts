import { createPolicy, type Policy } from '../policy/create-policy.ts';
import type { PolicyRule } from '../policy/policy-types.ts';
import { permissivePolicy, STORE_TOOLS, strictPolicy } from '../policy/presets.ts';
import { requireApprovalFor, requirePlanApproval } from '../policy/tool-rules.ts';
import { writeScope } from '../policy/write-scope.ts';
import { parseAllowlist } from '../tools/guards/network-allowlist.ts';
import { urlsAllowed } from './operator-network.ts';
import type { RunSettings } from './task-config.ts';

/** The tools the CLI's default policy sends for approval on every call, whatever their arguments. */
export const CLI_APPROVAL_TOOLS = Object.freeze(['sandbox_exec', 'http_post']);

/**
 * The policy `agency run` holds a task to, chosen by the operator (`--policy`, or `"policy"` in their config):
 *
 * - `default`: built from `strictPolicy()`'s rules, for a task run from a shell. Every plan needs approval
 *   (`plan-approval`); `sandbox_exec` and `http_post` need approval on every call (`approval:named-tools`); a network
 *   tool needs approval unless every URL it is given is on the run's network allowlist (`approval:network`); write
 *   tools write only under `progress/` (`write-scope`). Unlike `strict`, `fs_write` (already confined to
 *   `progress/artifacts/` and the notes) and `test_runner` (the configured command, in the sandbox) run freely;
 *   with the sandbox off, every `exec` tool needs approval (`approval:unsandboxed`).
 * - `strict`: `strictPolicy()`: also `fs_write` and every `exec` or `network` tool on every call.
 * - `permissive`: no rules of the operator's (a warning is journaled); the spec's approval rules still apply.
 *
 * With any of them, the operator's `require_tools` need approval on every call (`operator:require-tools`).
 *
 * @example
 * const policy = operatorPolicy(narrowToOperator(operator, task, file));
 */
export function operatorPolicy(settings: RunSettings): Policy {
  const { operator } = settings;
  const required: PolicyRule[] =
    operator.requireTools.length > 0
      ? [requireApprovalFor({ id: 'operator:require-tools', tools: operator.requireTools })]
      : [];
  if (operator.policy === 'permissive') return permissivePolicy().extend(required);
  if (operator.policy === 'strict') return strictPolicy().extend(required);
  const trusted = parseAllowlist(settings.offline ? [] : settings.allow);
  return createPolicy({
    rules: [
      writeScope({ paths: ['progress'], except: STORE_TOOLS }),
      requirePlanApproval(),
      requireApprovalFor({ id: 'approval:named-tools', tools: CLI_APPROVAL_TOOLS }),
      requireApprovalFor({
        id: 'approval:network',
        effects: ['network'],
        unless: (request) => urlsAllowed(trusted, request.input),
      }),
      // Without the sandbox, a task's test command would run on this host unreviewed.
      ...(settings.sandbox === 'none' ? [requireApprovalFor({ id: 'approval:unsandboxed', effects: ['exec'] })] : []),
      ...required,
    ],
  });
}

/**
 * The operator's opt-outs a run journals as `warning` when it starts or resumes: a permissive policy, no sandbox.
 *
 * @example
 * createRunner({ policy: operatorPolicy(settings), warnings: operatorWarnings(settings) })
 */
export function operatorWarnings(settings: RunSettings): string[] {
  const warnings: string[] = [];
  if (settings.operator.policy === 'permissive')
    warnings.push(
      "The operator chose --policy permissive: none of the operator's rules apply (no approval for network or exec tools, no write scope); only the spec's approval settings and the tools' own guards (path scope, network guard, sandbox) do",
    );
  if (settings.sandbox === 'none')
    warnings.push(
      'The operator switched the sandbox off (sandbox: none): sandbox_exec and test_runner run commands on this host, unisolated',
    );
  return warnings;
}
