import { base64ToBytes, bytesToBase64 } from './bytes.ts';

/**
 * Encodes values that JSON cannot hold (bytes, dates, URLs, errors) as tagged objects, and decodes them back.
 * Cassettes and serialized runs use it, so a value written to disk comes back as the same kind of value.
 *
 * Tags: `{"$bytes": base64}`, `{"$date": iso}`, `{"$url": href}`, `{"$error": {name, message, ...fields}}`,
 * `{"$undefined": true}` inside arrays. Plain objects that happen to have a single `$`-prefixed key are escaped as
 * `{"$escaped": {...}}`.
 */
export function encodeJson(value: unknown): unknown {
  if (value === null || typeof value !== 'object') {
    if (typeof value === 'bigint') return value.toString();
    return value;
  }
  if (value instanceof Uint8Array) return { $bytes: bytesToBase64(value) };
  if (value instanceof ArrayBuffer) return { $bytes: bytesToBase64(new Uint8Array(value)) };
  if (value instanceof Date) return { $date: value.toISOString() };
  if (value instanceof URL) return { $url: value.href };
  if (value instanceof Error) return { $error: encodeError(value) };
  if (Array.isArray(value)) return value.map((item) => (item === undefined ? { $undefined: true } : encodeJson(item)));
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    if (item === undefined || typeof item === 'function' || typeof item === 'symbol') continue;
    out[key] = encodeJson(item);
  }
  return isTagLike(out) ? { $escaped: out } : out;
}

/** Reverses {@link encodeJson}. */
export function decodeJson(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map(decodeJson);
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record);
  if (keys.length === 1) {
    const [key] = keys;
    const tagged = record[key as string];
    switch (key) {
      case '$bytes':
        return base64ToBytes(String(tagged));
      case '$date':
        return new Date(String(tagged));
      case '$url':
        return new URL(String(tagged));
      case '$undefined':
        return undefined;
      case '$error':
        return decodeError(tagged as Record<string, unknown>);
      case '$escaped':
        return decodeObject(tagged as Record<string, unknown>);
    }
  }
  return decodeObject(record);
}

function decodeObject(record: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(record)) out[key] = decodeJson(item);
  return out;
}

function isTagLike(record: Record<string, unknown>): boolean {
  const keys = Object.keys(record);
  return keys.length === 1 && (keys[0] as string).startsWith('$');
}

function encodeError(error: Error): Record<string, unknown> {
  const fields: Record<string, unknown> = { name: error.name, message: error.message };
  for (const [key, item] of Object.entries(error)) {
    if (key !== 'cause') fields[key] = encodeJson(item);
  }
  if (error.cause !== undefined) fields.cause = encodeJson(error.cause);
  return fields;
}

function decodeError(fields: Record<string, unknown>): Error {
  const { name, message, cause, ...rest } = fields;
  const error = new Error(String(message ?? ''), cause === undefined ? undefined : { cause: decodeJson(cause) });
  error.name = String(name ?? 'Error');
  Object.assign(error, decodeObject(rest));
  return error;
}
