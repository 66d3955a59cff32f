import type { Policy } from './create-policy.ts';
import type { AuditSink } from './policy-types.ts';

/** The shape of a memory entry the policy can change: a kind and a text, plus anything else. */
export type CheckedMemoryEntry = { kind: string; text: string };

/** Options for {@link policyMemoryCheck}. */
export type PolicyMemoryCheckOptions = {
  /** Receives this check's audit events (after the policy's own sink), e.g. to journal them. */
  onAudit?: AuditSink;
  /** Told when rules changed an entry into something that is not an entry; that write is refused. */
  onInvalidChange?(message: string): void;
  /** The clock for the audit event of a write refused for needing approval. @default Date.now */
  now?: () => number;
};

/**
 * A memory write check (`createMemoryManager({ checkWrite })`, `memory.withWriteCheck()`) that asks `policy` about
 * every write as `{ kind: 'memory-write', scope: 'kind:id', entry }`: `allow` stores the entry, `modify` stores the
 * changed one, `deny` refuses it. A write a rule sends for approval is refused too, and audited as `policy.blocked`:
 * a memory write has no one to wait for. It is typed structurally so that `policy/` does not import `memory/`.
 *
 * @example
 * const memory = createMemoryManager({ store, channels, checkWrite: policyMemoryCheck(policy, { onAudit }) });
 */
export function policyMemoryCheck(policy: Policy, options: PolicyMemoryCheckOptions = {}) {
  const { onAudit, onInvalidChange, now = Date.now } = options;
  return <E extends CheckedMemoryEntry>(scope: { kind: string; id: string }, entry: E): E | null => {
    const label = `${scope.kind}:${scope.id}`;
    const decision = policy.evaluate({ kind: 'memory-write', scope: label, entry }, onAudit ? { onAudit } : {});
    if (decision.outcome === 'allow') return entry;
    if (decision.outcome === 'deny') return null;
    if (decision.outcome === 'require-approval') {
      onAudit?.({
        type: 'policy.blocked',
        ruleId: decision.ruleId,
        kind: 'memory-write',
        target: `memory:${label}`,
        reason: `memory writes cannot wait for approval, so this one is refused (${decision.reason})`,
        at: new Date(now()).toISOString(),
      });
      return null;
    }
    if (isEntry(decision.patch)) return decision.patch as E;
    onInvalidChange?.(
      `Policy rule(s) ${decision.modifiedBy.join(', ')} changed a memory write to ${label} into something that is not a memory entry; it was not written`,
    );
    return null;
  };
}

function isEntry(value: unknown): value is CheckedMemoryEntry {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const { kind, text } = value as Record<string, unknown>;
  return typeof kind === 'string' && typeof text === 'string';
}
