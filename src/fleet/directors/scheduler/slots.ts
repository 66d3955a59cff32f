// When a schedule entry's runs fall due: its cron expression in its time zone, with croner.
import { Cron } from 'croner';

// Slots counted one by one before the rest are only estimated (a director down for a year, every minute).
const COUNTED = 10_000;

/** The cron of `expression` in `timezone`, never started (only its dates are used). */
export function cronOf(expression: string, timezone: string): Cron {
  return new Cron(expression, { paused: true, mode: '5-part', timezone });
}

/** The first slot strictly after `after` (ms), or undefined when there is none. */
export function nextSlot(cron: Cron, after: number): number | undefined {
  return cron.nextRun(new Date(after))?.getTime();
}

/**
 * The slots due in `(after, until]`: the latest one, and how many older ones there are (the ones missed; counted up
 * to 10 000, then `missed` is at least that).
 */
export function dueSlots(cron: Cron, after: number, until: number): { latest: number | undefined; missed: number } {
  let latest: number | undefined;
  let count = 0;
  for (let slot = nextSlot(cron, after); slot !== undefined && slot <= until; slot = nextSlot(cron, slot)) {
    latest = slot;
    if (++count >= COUNTED) {
      latest = cron.previousRuns(1, new Date(until + 1))[0]?.getTime() ?? latest;
      break;
    }
  }
  return { latest, missed: Math.max(0, count - 1) };
}
