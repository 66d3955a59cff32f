import type { JsonValue } from '../core/messages.ts';

const MARKER = Symbol.for('agency.suspend-request');

/** What a tool throws to pause its run for human input; see {@link requestSuspend}. */
export type SuspendRequest = Error & { readonly [MARKER]: true; readonly payload: JsonValue };

/**
 * Pauses the run this tool call belongs to, for human input. The agent returns a suspended result; when it is
 * resumed with data, the tool is called again with that data in `context.resumeData`.
 *
 * @example
 * execute: (input, context) => context.resumeData ?? requestSuspend({ question: input.question })
 */
export function requestSuspend(payload: JsonValue): never {
  // An Error, so a tool run outside an agent still fails with a readable message and a stack.
  const request: SuspendRequest = Object.assign(new Error('The tool asked to suspend its run for human input'), {
    [MARKER]: true as const,
    payload,
  });
  throw request;
}

/** True for the value {@link requestSuspend} throws. */
export function isSuspendRequest(value: unknown): value is SuspendRequest {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[MARKER] === true;
}
