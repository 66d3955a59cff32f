import type { Tone } from '../../lib/tone.ts';

/** Where a request stands: decidable (`pending`), or not any more. */
export type ApprovalState = 'pending' | 'expired' | 'stale' | 'decided';

/** The badge colour of a request's state. */
export const APPROVAL_STATE_TONES: Record<ApprovalState, Tone> = {
  pending: 'orange',
  expired: 'gray',
  stale: 'yellow',
  decided: 'green',
};

/** Why a request in this state cannot be decided, or undefined when it can. */
export function blockedReason(state: ApprovalState, expiresAt: string): string | undefined {
  if (state === 'expired')
    return `This request expired at ${new Date(expiresAt).toLocaleString()}; it can no longer be decided. Resume the task to ask again.`;
  if (state === 'stale')
    return 'The plan changed after this was asked, so a decision would be refused. The run asks again for the new plan.';
  if (state === 'decided') return 'Already decided.';
  return undefined;
}
