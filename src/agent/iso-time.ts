let lastMs = Number.NaN;
let lastIso = '';

/**
 * `new Date(ms).toISOString()`, remembered for the last millisecond asked for. Formatting a date costs about a
 * microsecond, and the tool calls of a fast loop mostly start within the same millisecond.
 */
export function isoTime(ms: number): string {
  if (ms !== lastMs) {
    lastIso = new Date(ms).toISOString();
    lastMs = ms;
  }
  return lastIso;
}
