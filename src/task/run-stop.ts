import type { StopReason } from './contracts/state.ts';

const MARKER = Symbol.for('agency.run-stop');

/** Thrown inside a run to end it with a stop reason (a budget, a denial, a STOP file). Not a failure of agency. */
export type RunStop = Error & { readonly [MARKER]: true; readonly reason: StopReason };

/** A {@link RunStop} for `reason`. */
export function runStop(reason: StopReason, message = `The run stopped: ${reason}`): RunStop {
  return Object.assign(new Error(message), { [MARKER]: true as const, reason });
}

/** True for a {@link RunStop}. */
export function isRunStop(value: unknown): value is RunStop {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[MARKER] === true;
}
