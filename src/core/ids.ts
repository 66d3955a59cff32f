import { AgencyError } from './errors.ts';

/** The prefixes agency uses for its ids. */
export const ID_PREFIXES = ['task', 'req', 'evt', 'call', 'run', 'step', 'sus', 'mem'] as const;

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
  /** Returns `size` random bytes. @default Web Crypto's `crypto.getRandomValues`, which every JS runtime has */
  randomBytes?: (size: number) => Uint8Array;
};

/**
 * Creates a generator of sortable, prefixed ids such as `task_01JD3Z8W2X4N6Q8R0T2V4X6Z8B`. Ids sort by creation
 * time, and ids made in the same millisecond still sort in creation order.
 *
 * @example
 * const newId = createIdGenerator(); newId('task') // 'task_01JD…'
 */
export function createIdGenerator({ now = Date.now, randomBytes: random = webRandomBytes }: IdGeneratorDeps = {}) {
  let lastTime = -1;
  let timePart = '';
  const digits = new Uint8Array(RANDOM_CHARS);
  // Randomness is drawn from a pooled buffer: one system call per 256 new milliseconds, not one per id.
  let pool: Uint8Array = new Uint8Array(0);
  let poolOffset = 0;

  return function newId(prefix: IdPrefix): string {
    const time = Math.max(now(), lastTime);
    if (time === lastTime) {
      increment(digits);
    } else {
      if (poolOffset + RANDOM_CHARS > pool.length) {
        pool = random(RANDOM_CHARS * 256);
        poolOffset = 0;
      }
      for (let i = 0; i < RANDOM_CHARS; i++) digits[i] = (pool[poolOffset + i] as number) % 32;
      poolOffset += RANDOM_CHARS;
      lastTime = time;
      timePart = encodeTime(time);
    }
    let randomPart = '';
    for (let i = 0; i < RANDOM_CHARS; i++) randomPart += ALPHABET[digits[i] as number];
    return `${prefix}_${timePart}${randomPart}`;
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

function webRandomBytes(size: number): Uint8Array {
  return crypto.getRandomValues(new Uint8Array(size));
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

function increment(digits: Uint8Array): void {
  for (let i = digits.length - 1; i >= 0; i--) {
    const digit = digits[i] as number;
    if (digit < 31) {
      digits[i] = digit + 1;
      return;
    }
    digits[i] = 0;
  }
  throw new AgencyError('internal', 'id randomness overflowed within one millisecond');
}
