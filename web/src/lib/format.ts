// How numbers, durations, times and ids read in the dashboard. Pure functions: `now` is passed in where it matters.

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** 950 → "950", 12_400 → "12.4k", 3_200_000 → "3.2M". */
export function formatTokens(count: number | null | undefined): string {
  if (count === null || count === undefined) return '—';
  if (count < 1_000) return String(count);
  if (count < 1_000_000) return `${trimZero((count / 1_000).toFixed(count < 10_000 ? 2 : 1))}k`;
  return `${trimZero((count / 1_000_000).toFixed(2))}M`;
}

/** US dollars with enough digits for small model bills: $0.0042, $1.27, $120. */
export function formatCost(usd: number | null | undefined): string {
  if (usd === null || usd === undefined) return '—';
  if (usd === 0) return '$0';
  if (usd < 0.01) return `$${usd.toFixed(4)}`;
  if (usd < 100) return `$${usd.toFixed(2)}`;
  return `$${Math.round(usd).toLocaleString('en-US')}`;
}

/** 850 → "850 ms", 65_000 → "1m 05s", 7_500_000 → "2h 05m", 2 days → "2d 0h". */
export function formatDuration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return '—';
  const value = Math.max(0, Math.round(ms));
  if (value < 1_000) return `${value} ms`;
  if (value < MINUTE) return `${trimZero((value / 1_000).toFixed(1))}s`;
  if (value < HOUR) return `${Math.floor(value / MINUTE)}m ${pad((value % MINUTE) / 1_000)}s`;
  if (value < DAY) return `${Math.floor(value / HOUR)}h ${pad((value % HOUR) / MINUTE)}m`;
  return `${Math.floor(value / DAY)}d ${Math.floor((value % DAY) / HOUR)}h`;
}

/** How long ago an ISO time was: "just now", "4 min ago", "3 h ago", "2 d ago"; a future time reads "in 5 min". */
export function formatAge(iso: string, now: number): string {
  const then = Date.parse(iso);
  if (Number.isNaN(then)) return '—';
  const delta = now - then;
  const future = delta < 0;
  const span = Math.abs(delta);
  let text: string;
  if (span < 45_000) return future ? 'in a moment' : 'just now';
  else if (span < HOUR) text = `${Math.max(1, Math.round(span / MINUTE))} min`;
  else if (span < DAY) text = `${Math.round(span / HOUR)} h`;
  else text = `${Math.round(span / DAY)} d`;
  return future ? `in ${text}` : `${text} ago`;
}

/** An ISO time as the reader's local date and time, to the second. */
export function formatDateTime(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return date.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'medium' });
}

/** An ISO time as the local time of day with milliseconds, for timelines. */
export function formatClock(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  const hms = date.toLocaleTimeString('en-GB', { hour12: false });
  return `${hms}.${String(date.getMilliseconds()).padStart(3, '0')}`;
}

/** 512 → "512 B", 2_048 → "2 KB", 5_400_000 → "5.1 MB". */
export function formatBytes(bytes: number): string {
  if (bytes < 1_024) return `${bytes} B`;
  if (bytes < 1_024 * 1_024) return `${trimZero((bytes / 1_024).toFixed(1))} KB`;
  return `${trimZero((bytes / (1_024 * 1_024)).toFixed(1))} MB`;
}

/** The head of a long hex digest, for places with little room: "9c1b2f0a7d3e…". */
export function shortDigest(digest: string, length = 12): string {
  return digest.length > length ? `${digest.slice(0, length)}…` : digest;
}

/** Snake- and dot-cased words as prose: "waiting_approval" → "waiting for approval". */
export function humanize(word: string): string {
  if (word === 'waiting_approval') return 'waiting for approval';
  return word.replace(/[_.]/g, ' ');
}

function pad(value: number): string {
  return String(Math.floor(value)).padStart(2, '0');
}

function trimZero(text: string): string {
  return text.includes('.') ? text.replace(/\.?0+$/, '') : text;
}
