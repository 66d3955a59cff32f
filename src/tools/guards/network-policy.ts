import { AgencyError } from '../../core/errors.ts';
import { type Allowlist, parseAllowlist } from './network-allowlist.ts';

/** What outbound requests may do. Every field is optional; the guard refuses special addresses regardless. */
export type NetworkPolicy = {
  /**
   * Exceptions to the address policy: domains (`api.example.com`), suffixes (`*.example.com`), addresses and CIDRs
   * (`127.0.0.1/32`, `fd00::/8`), each optionally with a port (`127.0.0.1:8080`, `[::1]:8080`).
   * @default []
   */
  allow?: readonly string[];
  /** Redirects followed before failing with `network_too_many_redirects`. @default 5 */
  maxRedirects?: number;
  /** Deadline for the whole exchange: DNS, every hop, and the body. @default 30000 */
  timeoutMs?: number;
  /** Largest response body accepted, in bytes. @default 5242880 (5 MiB) */
  maxBytes?: number;
  /** Longest URL accepted, in characters. @default 4096 */
  maxUrlLength?: number;
};

/** The defaults of {@link NetworkPolicy}. */
export const NETWORK_DEFAULTS = {
  maxRedirects: 5,
  timeoutMs: 30_000,
  maxBytes: 5 * 1024 * 1024,
  maxUrlLength: 4096,
} as const;

/** A policy with defaults filled in and the allowlist parsed. */
export type ResolvedPolicy = {
  allowlist: Allowlist;
  maxRedirects: number;
  timeoutMs: number;
  maxBytes: number;
  maxUrlLength: number;
};

/** Validates `policy` and fills in {@link NETWORK_DEFAULTS}. Throws `invalid_argument` naming the bad field. */
export function resolvePolicy({
  allow = [],
  maxRedirects = NETWORK_DEFAULTS.maxRedirects,
  timeoutMs = NETWORK_DEFAULTS.timeoutMs,
  maxBytes = NETWORK_DEFAULTS.maxBytes,
  maxUrlLength = NETWORK_DEFAULTS.maxUrlLength,
}: NetworkPolicy = {}): ResolvedPolicy {
  requireInteger('maxRedirects', maxRedirects, 0);
  requireInteger('timeoutMs', timeoutMs, 1);
  requireInteger('maxBytes', maxBytes, 0);
  requireInteger('maxUrlLength', maxUrlLength, 1);
  return { allowlist: parseAllowlist(allow), maxRedirects, timeoutMs, maxBytes, maxUrlLength };
}

function requireInteger(field: string, value: number, min: number): void {
  if (Number.isSafeInteger(value) && value >= min) return;
  throw new AgencyError('invalid_argument', `policy.${field} must be an integer >= ${min}, got ${String(value)}.`, {
    details: { field: `policy.${field}` },
  });
}
