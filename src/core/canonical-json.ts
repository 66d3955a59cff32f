import canonicalize from 'canonicalize';
import { AgencyError } from './errors.ts';
import { sha256Hex } from './sha256.ts';

/**
 * Serializes a value as RFC 8785 (JCS) canonical JSON: keys sorted by UTF-16 code units, numbers in their shortest
 * round-trip form, no whitespace. Two equal values always give the same bytes, in any JCS implementation.
 *
 * @throws AgencyError `invalid_argument` for values JSON cannot represent: NaN, Infinity, lone surrogates, cycles,
 * or a top-level `undefined`.
 * @example
 * canonicalJson({ b: 1, a: [true, null] }) // '{"a":[true,null],"b":1}'
 */
export function canonicalJson(value: unknown): string {
  let out: string | undefined;
  try {
    out = canonicalize(value);
  } catch (cause) {
    throw new AgencyError('invalid_argument', `Value cannot be canonicalized: ${(cause as Error).message}`, { cause });
  }
  if (out === undefined) throw new AgencyError('invalid_argument', 'Value cannot be canonicalized: it is undefined');
  return out;
}

/** `sha256Hex(canonicalJson(value))`: the signature agency uses for plans, requests and tool arguments. */
export function canonicalDigest(value: unknown): string {
  return sha256Hex(canonicalJson(value));
}
