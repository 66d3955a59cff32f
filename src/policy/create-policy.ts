import { AgencyError } from '../core/errors.ts';
import { defaultRedactor, type Redactor } from '../core/redact.ts';
import {
  type AuditSink,
  type PolicyAuditEvent,
  type PolicyDecision,
  type PolicyRequest,
  type PolicyRule,
  payloadOf,
  targetOf,
  withPayload,
} from './policy-types.ts';

/** Options for one evaluation. */
export type EvaluateOptions = {
  /** Receives this evaluation's audit events, after the policy's own sink. */
  onAudit?: AuditSink;
  /** A human approved this request: `require-approval` verdicts are set aside, while `deny` still wins. */
  approved?: boolean;
  /** Decide without side effects: no audit events and no rate-limit tokens taken. */
  dryRun?: boolean;
};

/** A set of rules that answers {@link PolicyRequest}s. */
export type Policy = {
  readonly rules: readonly PolicyRule[];
  evaluate(request: PolicyRequest, options?: EvaluateOptions): PolicyDecision;
  /**
   * This policy with `rules` added after its own, keeping its audit sink, clock and redactor. The rules are shared,
   * not copied, so a rate limit keeps one bucket. The governed runner uses it to add the spec's approval rules to
   * the operator's policy, so that one engine decides.
   *
   * @throws AgencyError `invalid_argument` when an added rule reuses an id.
   * @example
   * const runPolicy = strictPolicy().extend([requireApprovalFor({ id: 'spec:require-tools', tools: ['fs_write'] })]);
   */
  extend(rules: readonly PolicyRule[]): Policy;
};

/** Options for {@link createPolicy}. */
export type PolicyOptions = {
  /** Evaluated in this order; see {@link createPolicy} for how verdicts combine. */
  rules: readonly PolicyRule[];
  /** Receives every `policy.blocked` and `policy.modified` event. */
  onAudit?: AuditSink | undefined;
  /** The clock for audit timestamps. @default Date.now */
  now?: () => number;
  /** Scrubs rule reasons before they reach decisions and audit events. @default defaultRedactor */
  redactor?: Redactor;
};

/**
 * Builds a policy from rules. Evaluation is deterministic: the rules run in order, each seeing the payload as
 * changed by the rules before it. The first `deny` ends evaluation and wins. Otherwise the first
 * `require-approval` wins, carrying any changes as its `patch`; evaluate again with `{ approved: true }` once a
 * human approves. Otherwise the changes make a `modify`, and with no changes the answer is `allow`. A rule that
 * throws denies (fail closed). Denials are audited at once; changes when the request goes ahead with them, which is
 * also when rules `commit` (a rate limit takes its token).
 *
 * @throws AgencyError `invalid_argument` when two rules share an id.
 * @example
 * const policy = createPolicy({
 *   rules: [toolDenylist(['shell_*']), requireApprovalFor(['http_post']), rateLimit({ tools: 'http_fetch', limit: 10, intervalMs: 60_000 })],
 *   onAudit: (event) => journal.append(event),
 * });
 * policy.evaluate({ kind: 'tool-call', tool: { name: 'http_post', effects: 'network' }, input: { url } });
 */
export function createPolicy({ rules, onAudit, now = Date.now, redactor = defaultRedactor }: PolicyOptions): Policy {
  const seen = new Set<string>();
  for (const [index, rule] of rules.entries()) {
    if (typeof rule?.id !== 'string' || rule.id === '' || typeof rule.check !== 'function')
      throw new AgencyError('invalid_argument', `Policy rules[${index}] needs an "id" and a "check" function`);
    if (seen.has(rule.id))
      throw new AgencyError(
        'invalid_argument',
        `Policy rules[${index}]: the id "${rule.id}" is used twice; pass { id } to one of the rules`,
        { details: { field: `rules[${index}].id` } },
      );
    seen.add(rule.id);
  }
  const frozen = Object.freeze([...rules]);

  const evaluate = (request: PolicyRequest, options: EvaluateOptions = {}): PolicyDecision => {
    const audit = (type: PolicyAuditEvent['type'], ruleId: string, reason: string) => {
      if (options.dryRun) return;
      const event: PolicyAuditEvent = {
        type,
        ruleId,
        kind: request.kind,
        target: redactor.redactText(targetOf(request)),
        reason,
        at: new Date(now()).toISOString(),
      };
      onAudit?.(event);
      options.onAudit?.(event);
    };
    let current = request;
    let approval: { ruleId: string; reason: string } | undefined;
    const changes: Array<{ ruleId: string; reason: string }> = [];
    for (const rule of frozen) {
      let verdict;
      try {
        verdict = rule.check(current);
      } catch {
        verdict = { effect: 'deny' as const, reason: `policy rule "${rule.id}" failed, so the action is denied` };
      }
      if (!verdict) continue;
      const reason = redactor.redactText(verdict.reason);
      if (verdict.effect === 'deny') {
        audit('policy.blocked', rule.id, reason);
        return { outcome: 'deny', reason, ruleId: rule.id };
      }
      if (verdict.effect === 'require-approval') {
        if (!options.approved) approval ??= { ruleId: rule.id, reason };
      } else {
        current = withPayload(current, verdict.patch);
        changes.push({ ruleId: rule.id, reason });
      }
    }
    const modifiedBy = changes.map((change) => change.ruleId);
    if (approval) {
      return changes.length === 0
        ? { outcome: 'require-approval', ...approval }
        : { outcome: 'require-approval', ...approval, patch: payloadOf(current), modifiedBy };
    }
    if (!options.dryRun) for (const rule of frozen) rule.commit?.(current);
    for (const change of changes) audit('policy.modified', change.ruleId, change.reason);
    const [first] = changes;
    if (!first) return { outcome: 'allow' };
    const reason = changes.map((change) => change.reason).join('; ');
    return { outcome: 'modify', patch: payloadOf(current), reason, ruleId: first.ruleId, modifiedBy };
  };

  const extend = (more: readonly PolicyRule[]): Policy =>
    createPolicy({ rules: [...frozen, ...more], onAudit, now, redactor });
  return { rules: frozen, evaluate, extend };
}
