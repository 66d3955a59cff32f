import { AgencyError } from './errors.ts';

/** The current time. Pass one in as a dependency so tests can fix time. */
export type Clock = {
  /** Milliseconds since the epoch. */
  now(): number;
};

/** The real clock. */
export const systemClock: Clock = { now: () => Date.now() };

/** Waits `ms` milliseconds, or rejects with AgencyError `aborted` as soon as `signal` aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.reject(abortedError(signal));
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(abortedError(signal));
    };
    const timer = setTimeout(() => {
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
