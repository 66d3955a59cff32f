import type { EventInput } from '../contracts/events.ts';
import type { InvalidDecision } from './broker.ts';

/** `file: problem`, the one-line form of an invalid decision for logs and terminals. */
export function formatInvalidDecision({ file, problem }: InvalidDecision): string {
  return `${file}: ${problem}`;
}

/**
 * The `approval.invalid` journal event for a decision that could not be acted on. Pass it to the journal from
 * `onInvalid`, so every refused decision file leaves a trace a human can read.
 *
 * @example
 * await broker.await(id, { onInvalid: (invalid) => journal.append(invalidDecisionEvent(invalid)) });
 */
export function invalidDecisionEvent(invalid: InvalidDecision): EventInput {
  return {
    type: 'approval.invalid',
    message: formatInvalidDecision(invalid),
    data: { request_id: invalid.id, file: invalid.file, problem: invalid.problem },
  };
}
