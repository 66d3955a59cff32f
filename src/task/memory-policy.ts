import type { MemoryWriteCheck } from '../memory/memory-manager.ts';
import type { Policy } from '../policy/create-policy.ts';
import { policyMemoryCheck } from '../policy/memory-check.ts';
import { journalAudit } from './governed-policy.ts';
import type { Session } from './session.ts';

/**
 * The check every memory write of a governed run goes through: the run's policy, asked `{ kind: 'memory-write' }`
 * (`policyMemoryCheck`). Denials and changes are journaled as `policy.blocked` and `policy.modified`; a write a
 * rule sends for approval is refused and journaled as `policy.blocked`, since learnings are written as the run ends.
 *
 * @example
 * const memory = manager.withWriteCheck(memoryWriteCheck(session, policy));
 */
export function memoryWriteCheck(session: Session, policy: Policy): MemoryWriteCheck {
  return policyMemoryCheck(policy, {
    onAudit: journalAudit(session),
    onInvalidChange: (message) => session.warn(message),
    now: session.now,
  });
}
