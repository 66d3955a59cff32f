import { AgencyError } from '../core/errors.ts';
import { type NamePatterns, nameMatcher } from './glob.ts';
import type { PolicyRule } from './policy-types.ts';

/** Options for {@link rateLimit}. */
export type RateLimitOptions = {
  /** The tools limited; each matching tool has its own bucket. */
  tools: NamePatterns;
  /** Calls allowed per `intervalMs`, refilled continuously. */
  limit: number;
  intervalMs: number;
  /** Calls that may be made at once after a quiet period. @default limit */
  burst?: number;
  /** @default Date.now */
  now?: () => number;
  /** @default 'rate-limit' */
  id?: string;
};

/**
 * A per-tool token bucket. A call is denied when its tool's bucket is empty; a token is taken only when the call
 * goes ahead: not for a call another rule denies, and for a call that needs approval only once it is approved.
 *
 * @throws AgencyError `invalid_argument` for a non-positive limit, interval or burst.
 * @example
 * rateLimit({ tools: 'http_*', limit: 30, intervalMs: 60_000, burst: 5 })
 */
export function rateLimit({
  tools,
  limit,
  intervalMs,
  burst = limit,
  now = Date.now,
  id = 'rate-limit',
}: RateLimitOptions): PolicyRule {
  for (const [field, value] of Object.entries({ limit, intervalMs, burst })) {
    if (!Number.isFinite(value) || value <= 0)
      throw new AgencyError('invalid_argument', `rateLimit "${id}": "${field}" must be a positive number`, {
        details: { field },
      });
  }
  const matches = nameMatcher(tools);
  const perMs = limit / intervalMs;
  const buckets = new Map<string, { tokens: number; at: number }>();
  const refill = (name: string) => {
    const t = now();
    const bucket = buckets.get(name) ?? { tokens: burst, at: t };
    bucket.tokens = Math.min(burst, bucket.tokens + Math.max(0, t - bucket.at) * perMs);
    bucket.at = t;
    buckets.set(name, bucket);
    return bucket;
  };
  return {
    id,
    check(request) {
      if (request.kind !== 'tool-call' || !matches(request.tool.name)) return undefined;
      const bucket = refill(request.tool.name);
      if (bucket.tokens >= 1) return undefined;
      const waitMs = Math.ceil((1 - bucket.tokens) / perMs);
      return {
        effect: 'deny',
        reason: `rate limit for tool "${request.tool.name}" (${limit} per ${intervalMs} ms) reached; retry in ${waitMs} ms`,
      };
    },
    commit(request) {
      if (request.kind !== 'tool-call' || !matches(request.tool.name)) return;
      refill(request.tool.name).tokens -= 1;
    },
  };
}
