/** How waits between attempts grow: doubling from `initialMs`, capped at `maxMs`. */
export type BackoffPolicy = {
  initialMs: number;
  maxMs: number;
  /** @default Math.random */
  random?: () => number;
};

/**
 * Exponential backoff with jitter: the wait before retry number `attempt` (1 for the first retry) doubles from
 * `initialMs` up to `maxMs`, and is drawn at random from the upper half of that ceiling, so clients that failed
 * together do not retry together.
 *
 * @example
 * backoffDelay(3, { initialMs: 1000, maxMs: 30_000 }) // between 2000 and 4000
 */
export function backoffDelay(attempt: number, { initialMs, maxMs, random = Math.random }: BackoffPolicy): number {
  const ceiling = Math.min(maxMs, initialMs * 2 ** Math.max(0, attempt - 1));
  return Math.round(ceiling / 2 + random() * (ceiling / 2));
}
