import { AgencyError } from './errors.ts';

/** The current time. Pass one in as a dependency so tests can fix time. */
export type Clock = {
  /** Milliseconds since the epoch. */
  now(): number;
};

/** The real clock. */
export const systemClock: Clock = { now: () => Date.now() };

/** A clock that can also call back later: pass one in so tests advance time by hand instead of waiting. */
export type Timers = Clock & {
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
};

/** The real timers. */
export const systemTimers: Timers = {
  now: () => Date.now(),
  setTimeout: (callback, ms) => setTimeout(callback, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

/** Waits `ms` milliseconds, or rejects with AgencyError `aborted` as soon as `signal` aborts. */
export function sleep(ms: number, signal?: AbortSignal, timers: Timers = systemTimers): Promise<void> {
  if (signal?.aborted) return Promise.reject(abortedError(signal));
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      timers.clearTimeout(timer);
      reject(abortedError(signal));
    };
    const timer = timers.setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** The AgencyError to raise when `signal` has aborted, keeping its reason as the cause. */
export function abortedError(signal?: AbortSignal): AgencyError {
  const reason: unknown = signal?.reason;
  if (AgencyError.isInstance(reason)) return reason;
  return new AgencyError('aborted', 'The operation was aborted.', { cause: reason });
}
