import { randomBytes } from 'node:crypto';
import { AgencyError } from './errors.ts';

/** The prefixes agency uses for its ids. */
export const ID_PREFIXES = ['task', 'req', 'evt', 'call', 'run', 'step', 'sus'] as const;

/** One of {@link ID_PREFIXES}. */
export type IdPrefix = (typeof ID_PREFIXES)[number];

/** Creates ids. Pass one in as a dependency so tests can fix ids. */
export type IdGenerator = (prefix: IdPrefix) => string;

// Crockford's base32, as in ULID: sortable as plain strings, no ambiguous letters.
const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const TIME_CHARS = 10;
const RANDOM_CHARS = 16;

/** Dependencies for {@link createIdGenerator}. */
export type IdGeneratorDeps = {
  /** Milliseconds since the epoch. @default Date.now */
  now?: () => number;
  /** Fills a buffer with random bytes. @default crypto.randomBytes */
  randomBytes?: (size: number) => Uint8Array;
};

/**
 * Creates a generator of sortable, prefixed ids such as `task_01JD3Z8W2X4N6Q8R0T2V4X6Z8B`. Ids sort by creation
 * time, and ids made in the same millisecond still sort in creation order.
 *
 * @example
 * const newId = createIdGenerator(); newId('task') // 'task_01JD…'
 */
export function createIdGenerator({ now = Date.now, randomBytes: random = randomBytes }: IdGeneratorDeps = {}) {
  let lastTime = -1;
  let lastRandom: number[] = [];

  return function newId(prefix: IdPrefix): string {
    const time = Math.max(now(), lastTime);
    if (time === lastTime) {
      lastRandom = increment(lastRandom);
    } else {
      lastTime = time;
      lastRandom = Array.from(random(RANDOM_CHARS), (byte) => byte % 32);
    }
    return `${prefix}_${encodeTime(time)}${lastRandom.map((digit) => ALPHABET[digit]).join('')}`;
  } satisfies IdGenerator;
}

/** The process-wide default id generator. */
export const newId: IdGenerator = createIdGenerator();

/** True when `id` has the given prefix and a well-formed body. */
export function isId(id: unknown, prefix: IdPrefix): id is string {
  return typeof id === 'string' && new RegExp(`^${prefix}_[0-9A-HJKMNP-TV-Z]{26}$`).test(id);
}

/** The creation time encoded in an id, in milliseconds since the epoch. */
export function idTime(id: string): number {
  const body = id.slice(id.indexOf('_') + 1, id.indexOf('_') + 1 + TIME_CHARS);
  let time = 0;
  for (const char of body) {
    const digit = ALPHABET.indexOf(char);
    if (digit < 0) throw new AgencyError('invalid_argument', `"${id}" is not an agency id`);
    time = time * 32 + digit;
  }
  return time;
}

function encodeTime(time: number): string {
  let out = '';
  let rest = time;
  for (let i = 0; i < TIME_CHARS; i++) {
    out = ALPHABET[rest % 32] + out;
    rest = Math.floor(rest / 32);
  }
  return out;
}

function increment(digits: number[]): number[] {
  const next = [...digits];
  for (let i = next.length - 1; i >= 0; i--) {
    const digit = next[i] ?? 0;
    if (digit < 31) {
      next[i] = digit + 1;
      return next;
    }
    next[i] = 0;
  }
  throw new AgencyError('internal', 'id randomness overflowed within one millisecond');
}
