import { AgencyError } from './errors.ts';
import { createSecretMatcher } from './redact-secrets.ts';

/** The text that replaces a redacted value. Pattern matches use `[REDACTED:<kind>]`. */
export const REDACTED = '[REDACTED]';

/** Registered secrets shorter than this are ignored: redacting every `"abc"` would shred ordinary text. */
export const MIN_SECRET_LENGTH = 8;

/**
 * The fewest consecutive characters of a registered secret that are redacted on their own, wherever the secret was
 * cut: by a tool's byte limit, an output cap or the history's truncation, all of which run before redaction.
 */
export const MIN_FRAGMENT_LENGTH = 10;

/**
 * A kind of secret recognised by its shape. A named group `keep` is left in place, so that
 * `Authorization: Bearer abc…` becomes `Authorization: Bearer [REDACTED:bearer]`.
 */
export type RedactionPattern = { kind: string; regex: RegExp };

/** Scrubs secrets from text and from values before they are written anywhere. */
export type Redactor = {
  /** Replaces every known secret in `text`. */
  redactText(text: string): string;
  /**
   * A deep copy of `value` with every string redacted, object and map keys included; a number whose digits spell a
   * registered secret becomes {@link REDACTED}. The whole value of a sensitive key (`authorization`,
   * `api_key`, `password`, `x-api-key`, `cookie`, `set-cookie`, `…token`, `…secret`) is replaced. Errors stay errors
   * of the same class, with message, stack, cause and fields redacted.
   */
  redact<T>(value: T): T;
  /**
   * Adds a value to redact from now on, wherever it appears whole: as given, in NFC or NFD, in any letter case, and
   * encoded, even partly or by turns, with `%XX` (either hex case, up to four layers deep, as `encodeURI` and
   * `encodeURIComponent` write it), JSON escapes (`\"`, `\uXXXX`, JSON inside JSON) or HTML references (`&#NN;`,
   * `&#xHH;`, `&amp;`…), and in base64. Any run of {@link MIN_FRAGMENT_LENGTH} or more of its consecutive
   * characters, in any of these spellings, is redacted too, unless every 10 characters of the run hold fewer than 4
   * different ones (`aaaaaaaaaa`). Values shorter than {@link MIN_SECRET_LENGTH} are ignored.
   */
  register(secret: string): void;
};

/** Options for {@link createRedactor}. */
export type RedactorOptions = {
  /** @default DEFAULT_REDACTION_PATTERNS */
  patterns?: readonly RedactionPattern[];
  /** Exact values to redact from the start, as if passed to `register`. */
  extraSecrets?: readonly string[];
  /**
   * The fewest consecutive characters of a registered value redacted on their own: an integer of at least
   * {@link MIN_SECRET_LENGTH}, or `Infinity` to redact whole values only.
   * @default MIN_FRAGMENT_LENGTH (10)
   */
  fragmentLength?: number;
};

// A value already replaced by an earlier pattern is not matched again.
const FRESH = String.raw`(?!\[REDACTED)`;

const p = (kind: string, source: string, flags = 'g'): RedactionPattern => ({ kind, regex: new RegExp(source, flags) });

// Every pattern starts at a literal or has bounded repetition before its first literal: redaction runs on every
// string agency writes, and an unanchored `\w*` prefix made a 200 KB tool output take minutes.
/**
 * The secret shapes agency recognises: provider API keys (Anthropic, OpenAI), GitHub tokens, AWS access key ids and
 * secret keys, `Authorization` headers and bearer tokens, secrets in URL query strings and user-info, `password=…`
 * style assignments, and PEM private key blocks. Value characters never include quotes, so redacting JSON text keeps
 * it valid JSON.
 */
export const DEFAULT_REDACTION_PATTERNS: readonly RedactionPattern[] = Object.freeze([
  p(
    'private-key',
    String.raw`-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----(?:(?!-----)[\s\S])*-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----`,
  ),
  p('anthropic', String.raw`\bsk-ant-[A-Za-z0-9_-]{8,}`),
  p('openai', String.raw`\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{16,}`),
  p('github', String.raw`\b(?:gh[pousr]_[A-Za-z0-9_]{16,}|github_pat_[A-Za-z0-9_]{16,})`),
  p('aws-key-id', String.raw`\b(?:AKIA|ASIA)[A-Z0-9]{16}\b`),
  p('aws-secret', String.raw`(?<keep>aws_secret_access_key["']?\s*[:=]\s*["']?)${FRESH}[A-Za-z0-9/+=]{16,}`, 'gi'),
  p(
    'authorization',
    String.raw`(?<keep>\b(?:proxy-)?authorization["']?\s*[:=]\s*["']?(?:(?:bearer|basic|token|bot|digest)\s+)?)` +
      String.raw`${FRESH}[^\s"'\\,;]{4,}`,
    'gi',
  ),
  p('bearer', String.raw`(?<keep>\bbearer\s+)(?=[A-Za-z0-9._~+/-]*[0-9])[A-Za-z0-9._~+/-]{12,}=*`, 'gi'),
  p(
    'url-param',
    String.raw`(?<keep>[?&#](?:key|api[_-]?key|token|access[_-]?token|refresh[_-]?token|auth|secret|client[_-]?secret|` +
      String.raw`password|sig|signature|x-amz-signature|x-amz-credential|x-amz-security-token)=)${FRESH}[^&#\s"'\\<>]+`,
    'gi',
  ),
  p(
    'url-userinfo',
    String.raw`(?<keep>\b[a-z][a-z0-9+.-]{0,15}://[^/\s:@"'\\]{1,128}:)${FRESH}[^@\s/"'\\]{1,256}(?=@)`,
    'gi',
  ),
  p(
    'assignment',
    String.raw`(?<keep>(?<![a-z0-9])(?:password|passwd|api[_-]?key|access[_-]?token|client[_-]?secret|private[_-]?key)` +
      String.raw`["']?\s*[:=]\s*["']?)${FRESH}[^\s"'\\&,;]{6,}`,
    'gi',
  ),
]);

const SENSITIVE_KEYS = new Set([
  'authorization',
  'proxyauthorization',
  'apikey',
  'xapikey',
  'password',
  'passwd',
  'cookie',
  'setcookie',
  'secret',
  'token',
  'privatekey',
  'awssecretaccesskey',
  'clientsecret',
  'credentials',
]);
const SENSITIVE_SUFFIXES = ['apikey', 'secret', 'password', 'token', 'privatekey', 'secretkey', 'accesskey'];

/** True for object keys whose whole value is a secret: `authorization`, `api_key`, `X-Api-Key`, `accessToken`… */
export function isSensitiveKey(key: string): boolean {
  const normalized = key.toLowerCase().replace(/[-_\s.]/g, '');
  return SENSITIVE_KEYS.has(normalized) || SENSITIVE_SUFFIXES.some((suffix) => normalized.endsWith(suffix));
}

/**
 * Creates a redactor. Built-in patterns catch the common secret shapes; `register` adds exact values (the credential
 * broker registers every credential it loads), also in their encoded spellings (see {@link Redactor.register}).
 *
 * @example
 * const redactor = createRedactor({ extraSecrets: [process.env.DB_PASSWORD ?? ''] });
 * redactor.redactText('curl -H "Authorization: Bearer abc123def456ghi"'); // '… Bearer [REDACTED:authorization]"'
 */
export function createRedactor({
  patterns = DEFAULT_REDACTION_PATTERNS,
  extraSecrets = [],
  fragmentLength = MIN_FRAGMENT_LENGTH,
}: RedactorOptions = {}): Redactor {
  if (fragmentLength !== Infinity && !(Number.isInteger(fragmentLength) && fragmentLength >= MIN_SECRET_LENGTH))
    throw new AgencyError(
      'invalid_argument',
      `createRedactor: fragmentLength must be an integer of at least ${MIN_SECRET_LENGTH}, or Infinity; got ${fragmentLength}`,
    );
  const compiled = patterns.map(({ kind, regex }) => ({
    kind,
    regex: new RegExp(regex.source, regex.flags.includes('g') ? regex.flags : `${regex.flags}g`),
  }));
  const secrets = createSecretMatcher({ minLength: MIN_SECRET_LENGTH, replacement: REDACTED, fragmentLength });

  // The patterns go first: a registered secret sharing 10 characters with another secret (two Anthropic keys share
  // `sk-ant-api03-`) would otherwise cut that prefix out of it, and the pattern would no longer match its rest. A
  // registered secret that a pattern cut into is still found by its remaining runs of 10 characters.
  const redactText = (text: string): string => {
    let out = text;
    for (const { kind, regex } of compiled) {
      regex.lastIndex = 0;
      out = out.replace(regex, (...args: unknown[]) => {
        const groups = args.at(-1);
        const keep = typeof groups === 'object' && groups !== null ? (groups as { keep?: string }).keep : undefined;
        return `${keep ?? ''}[REDACTED:${kind}]`;
      });
    }
    return secrets.redact(out);
  };

  const redactor: Redactor = {
    redactText,
    redact: <T>(value: T): T => redactValue(value, redactText, new WeakMap()) as T,
    register: (secret) => secrets.register(secret),
  };
  for (const secret of extraSecrets) secrets.register(secret);
  return redactor;
}

type RedactText = (text: string) => string;

function redactValue(value: unknown, redactText: RedactText, seen: WeakMap<object, unknown>): unknown {
  if (typeof value === 'string') return redactText(value);
  if (typeof value === 'number' || typeof value === 'bigint') return redactNumber(value, redactText);
  if (typeof value !== 'object' || value === null) return value;
  const known = seen.get(value);
  if (known !== undefined) return known;
  const recurse = (item: unknown) => redactValue(item, redactText, seen);
  if (Array.isArray(value)) {
    const out: unknown[] = [];
    seen.set(value, out);
    for (const item of value) out.push(recurse(item));
    return out;
  }
  if (value instanceof Date || ArrayBuffer.isView(value) || value instanceof ArrayBuffer) return value;
  if (value instanceof URL) return redactUrl(value, redactText);
  if (value instanceof Map) {
    const out = new Map();
    seen.set(value, out);
    for (const [key, item] of value)
      out.set(redactKey(key, redactText), typeof key === 'string' && isSensitiveKey(key) ? REDACTED : recurse(item));
    return out;
  }
  if (value instanceof Set) {
    const out = new Set();
    seen.set(value, out);
    for (const item of value) out.add(recurse(item));
    return out;
  }
  // Plain objects, errors and class instances keep their prototype, so an AgencyError stays one.
  const out = Object.create(Object.getPrototypeOf(value) as object | null) as Record<PropertyKey, unknown>;
  seen.set(value, out);
  copyFields(value, out, recurse, redactText);
  return out;
}

function copyFields(value: object, out: object, recurse: (item: unknown) => unknown, redactText: RedactText): void {
  const isError = value instanceof Error;
  for (const key of Reflect.ownKeys(value)) {
    const descriptor = Object.getOwnPropertyDescriptor(value, key);
    if (!descriptor) continue;
    // Errors keep their non-enumerable message, stack and cause; other objects only their enumerable fields.
    if (!descriptor.enumerable && !isError) continue;
    // Accessors are read once and copied as data, so a getter cannot hand back the unredacted value later.
    const item: unknown = 'value' in descriptor ? descriptor.value : Reflect.get(value, key);
    Object.defineProperty(out, redactKey(key, redactText), {
      value: typeof key === 'string' && isSensitiveKey(key) && isSecretShaped(item) ? REDACTED : recurse(item),
      enumerable: descriptor.enumerable ?? false,
      writable: true,
      configurable: true,
    });
  }
}

// A key is text a model or a tool chose (`{"<token>": …}` in tool arguments), so it is redacted like a value. A key
// shorter than MIN_SECRET_LENGTH can hold neither a registered secret nor a pattern's match.
function redactKey<K>(key: K, redactText: RedactText): K | string {
  return typeof key === 'string' && key.length >= MIN_SECRET_LENGTH ? redactText(key) : key;
}

// A number can spell a registered secret (an account or card number); it is then written as the redacted text.
function redactNumber(value: number | bigint, redactText: RedactText): number | bigint | string {
  const text = String(value);
  return text.length >= MIN_SECRET_LENGTH && redactText(text) !== text ? REDACTED : value;
}

// A sensitive key hides a scalar or a list of strings whole; an object under it (a JSON Schema for a `password`
// argument, a `credentials` record) is walked instead, so its structure survives.
function isSecretShaped(item: unknown): boolean {
  if (typeof item === 'string') return item !== '';
  if (typeof item === 'number' || typeof item === 'bigint') return true;
  return Array.isArray(item) && item.length > 0 && item.every((entry) => typeof entry === 'string');
}

function redactUrl(url: URL, redactText: RedactText): URL | string {
  const text = redactText(url.href);
  if (text === url.href) return url;
  try {
    return new URL(text);
  } catch {
    return text;
  }
}

/**
 * A copy of a thrown value that is safe to persist: an Error keeps its class and code, with message, stack, cause
 * and fields redacted; anything else is redacted as a value. Use it wherever an error is written to disk or a log.
 */
export function redactError<T>(error: T, redactor: Redactor): T {
  return redactor.redact(error);
}

/**
 * The process-wide redactor. The credential broker registers each credential it loads here (unless given another
 * redactor), and `recordModel`, `createLogger` and `AgencyError.toJSON` use it by default. To keep state out of the
 * process, pass your own `createRedactor()` to each of them instead.
 */
export const defaultRedactor: Redactor = createRedactor();
