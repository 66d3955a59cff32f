import { z } from 'zod';
import type { ErrorCode } from '../../core/error-codes.ts';
import { AgencyError, errorMessage } from '../../core/errors.ts';
import { defineTool, type Tool } from '../define-tool.ts';
import { guardedFetch, type GuardedResponse } from '../guards/network-fetch.ts';
import { NETWORK_DEFAULTS, type NetworkPolicy } from '../guards/network-policy.ts';
import { mergeHeaders, type NetworkToolOptions, resolveNetworkOptions } from './network-options.ts';
import { positiveLimit } from './option-checks.ts';

/** Options for {@link createLinksCheckTool}. */
export type LinksCheckToolOptions = Pick<NetworkToolOptions, 'lookup' | 'headers'> & {
  /** The network guard's policy for every check. @default { timeoutMs: 10000 } */
  policy?: NetworkPolicy;
  /** The most URLs one call may check. @default 50 */
  maxUrls?: number;
  /** Checks in flight at once. @default 4 */
  concurrency?: number;
};

/** The verdict on one URL. */
export type LinkCheckResult = {
  url: string;
  /** The final status was 2xx or 3xx. */
  ok: boolean;
  /** The final status, when a response arrived. */
  status?: number;
  /** The URL that answered last, when redirects were followed. */
  final_url?: string;
  /** The method that gave the verdict: HEAD, or GET after HEAD failed. */
  method: 'HEAD' | 'GET';
  /** Why no usable response arrived: the guard's code (`network_blocked`, `timeout`…) and message. */
  error?: { code: ErrorCode; message: string };
};

/** What `links_check` returns. */
export type LinksCheckOutput = { results: LinkCheckResult[]; checked: number; ok: number; broken: number };

/**
 * `links_check` (effects `network`, idempotent): checks URLs through the network guard, with HEAD and then GET when
 * HEAD fails (405, 501 and other error statuses, or a dropped connection), at most `concurrency` at a time. Blocked
 * destinations are reported per URL and never contacted.
 *
 * @example
 * const linksCheck = createLinksCheckTool({ maxUrls: 20, concurrency: 4 });
 */
export function createLinksCheckTool({
  maxUrls = 50,
  concurrency = 4,
  policy = {},
  ...options
}: LinksCheckToolOptions = {}): Tool<{ urls: string[] }, LinksCheckOutput> {
  positiveLimit('links_check', 'maxUrls', maxUrls);
  positiveLimit('links_check', 'concurrency', concurrency);
  const checkPolicy = { timeoutMs: 10_000, ...policy };
  const { headers, lookup } = resolveNetworkOptions('links_check', { ...options, policy: checkPolicy });
  const perUrl = 2 * (checkPolicy.timeoutMs ?? NETWORK_DEFAULTS.timeoutMs);
  return defineTool({
    name: 'links_check',
    description:
      'Check whether URLs work: HEAD, then GET if HEAD fails. Returns the status of each URL and counts of ok and ' +
      `broken links. At most ${maxUrls} URLs per call.`,
    input: z.object({ urls: z.array(z.string().min(1)).min(1).max(maxUrls).describe('The URLs to check') }),
    effects: 'network',
    idempotent: true,
    timeoutMs: Math.ceil(maxUrls / concurrency) * perUrl + 5_000,
    execute: async ({ urls }, { signal }) => {
      const unique = [...new Set(urls)];
      const check = (url: string) =>
        checkLink(url, (method) =>
          guardedFetch(url, { method, headers: mergeHeaders({}, headers), policy: checkPolicy, lookup, signal }),
        );
      const results = await mapLimit(unique, concurrency, check);
      const ok = results.filter((result) => result.ok).length;
      return { results, checked: results.length, ok, broken: results.length - ok };
    },
  });
}

async function checkLink(
  url: string,
  send: (method: 'HEAD' | 'GET') => Promise<GuardedResponse>,
): Promise<LinkCheckResult> {
  const head = await attempt(url, 'HEAD', send);
  const headFailed = head.error ? head.error.code === 'network_failed' : (head.status ?? 0) >= 400;
  return headFailed ? attempt(url, 'GET', send) : head;
}

async function attempt(
  url: string,
  method: 'HEAD' | 'GET',
  send: (method: 'HEAD' | 'GET') => Promise<GuardedResponse>,
): Promise<LinkCheckResult> {
  try {
    const response = await send(method);
    const redirected = response.url !== url ? { final_url: response.url } : {};
    return { url, ok: response.status < 400, status: response.status, method, ...redirected };
  } catch (error) {
    if (AgencyError.hasCode(error, 'aborted')) throw error;
    const code = AgencyError.isInstance(error) ? error.code : 'network_failed';
    return { url, ok: false, method, error: { code, message: errorMessage(error) } };
  }
}

/** Runs `fn` over `items` with at most `limit` in flight, keeping the input order in the result. */
async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next;
      next += 1;
      results[index] = await fn(items[index] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}
