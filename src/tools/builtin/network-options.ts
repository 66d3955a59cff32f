import { NETWORK_DEFAULTS, type NetworkPolicy } from '../guards/network-policy.ts';
import type { NetworkLookup } from '../guards/network-resolve.ts';
import type { BinaryBodyMode } from './http-response.ts';
import { positiveLimit } from './option-checks.ts';

/** Options shared by `http_fetch`, `http_post` and `links_check`. */
export type NetworkToolOptions = {
  /**
   * The network guard's policy: `allow` opens private or local destinations (public addresses are always allowed),
   * `maxBytes` caps the downloaded body (a larger one fails with `network_response_too_large`), `timeoutMs` bounds
   * the whole exchange. See docs/network.md.
   * @default {}
   */
  policy?: NetworkPolicy;
  /** The resolver; inject one in tests. @default systemLookup */
  lookup?: NetworkLookup;
  /** Headers sent with every request, over the model's own; e.g. a `user-agent`. @default { 'user-agent': 'agency' } */
  headers?: Readonly<Record<string, string>>;
  /** Characters of body returned to the model; the rest is cut and `truncated` set. @default 100000 */
  maxBodyChars?: number;
  /** What to do with a binary body: refuse it with `content_not_text`, or return it as base64. @default 'refuse' */
  binary?: BinaryBodyMode;
};

/** {@link NetworkToolOptions} with defaults applied. */
export type ResolvedNetworkOptions = {
  policy: NetworkPolicy;
  lookup: NetworkLookup | undefined;
  headers: Readonly<Record<string, string>>;
  maxBodyChars: number;
  binary: BinaryBodyMode;
  /** The tool's own timeout: the guard's deadline plus slack, so the guard's clearer error wins the race. */
  toolTimeoutMs: number;
};

/** Applies the defaults of {@link NetworkToolOptions}. */
export function resolveNetworkOptions(
  tool: string,
  {
    policy = {},
    lookup,
    headers = { 'user-agent': 'agency' },
    maxBodyChars = 100_000,
    binary = 'refuse',
  }: NetworkToolOptions,
): ResolvedNetworkOptions {
  positiveLimit(tool, 'maxBodyChars', maxBodyChars);
  const timeoutMs = policy.timeoutMs ?? NETWORK_DEFAULTS.timeoutMs;
  return { policy, lookup, headers, maxBodyChars, binary, toolTimeoutMs: timeoutMs + 5_000 };
}

/** The model's headers with the harness's on top, names lower-cased so one cannot shadow the other by case. */
export function mergeHeaders(
  model: Readonly<Record<string, string>> | undefined,
  harness: Readonly<Record<string, string>>,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(model ?? {})) out[name.toLowerCase()] = value;
  for (const [name, value] of Object.entries(harness)) out[name.toLowerCase()] = value;
  return out;
}
