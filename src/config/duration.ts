import { z } from 'zod';

const UNIT_MS = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 } as const;

/**
 * Parses a duration as configs write it: `90s`, `30m`, `1h30m`, `250ms`, or a bare number of seconds. Returns
 * milliseconds, or undefined when the text is not a duration.
 *
 * @example
 * parseDuration('1h30m') // 5400000
 */
export function parseDuration(text: string | number): number | undefined {
  if (typeof text === 'number') return Number.isFinite(text) && text >= 0 ? text * 1_000 : undefined;
  const trimmed = text.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Number(trimmed) * 1_000;
  if (!/^(\d+(\.\d+)?(ms|s|m|h))+$/.test(trimmed)) return undefined;
  let total = 0;
  for (const [, amount, unit] of trimmed.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h)/g))
    total += Number(amount) * UNIT_MS[unit as keyof typeof UNIT_MS];
  return total;
}

/** A zod schema for a duration between `min` and `max` milliseconds, giving milliseconds. */
export function durationSchema({ min, max }: { min: number; max: number }) {
  const hint = `a duration such as 90s, 30m or 1h30m, between ${describe(min)} and ${describe(max)}`;
  return z.union([z.string(), z.number()], { error: `must be ${hint}` }).transform((value, context) => {
    const ms = parseDuration(value);
    if (ms === undefined || ms < min || ms > max) {
      context.addIssue({ code: 'custom', message: `must be ${hint} (got ${JSON.stringify(value)})` });
      return z.NEVER;
    }
    return Math.round(ms);
  });
}

function describe(ms: number): string {
  if (ms % 3_600_000 === 0) return `${ms / 3_600_000}h`;
  if (ms % 60_000 === 0) return `${ms / 60_000}m`;
  if (ms % 1_000 === 0) return `${ms / 1_000}s`;
  return `${ms}ms`;
}
