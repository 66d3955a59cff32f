import { z } from 'zod';
import { defineTool, type Tool } from '../define-tool.ts';
import { guardedFetch } from '../guards/network-fetch.ts';
import { type HttpToolResponse, renderResponse } from './http-response.ts';
import { mergeHeaders, type NetworkToolOptions, resolveNetworkOptions } from './network-options.ts';

/** Options for {@link createHttpFetchTool}. */
export type HttpFetchToolOptions = NetworkToolOptions;

const input = z.object({
  url: z.string().min(1).describe('An http(s) URL'),
  headers: z
    .record(z.string(), z.string())
    .optional()
    .describe('Extra request headers, e.g. {"accept": "application/json"}'),
});

/**
 * `http_fetch` (effects `network`, idempotent): GETs a URL through the network guard (no private, loopback or
 * metadata addresses unless allowlisted; DNS pinned; every redirect re-checked; size and time limits) and returns
 * the final URL, status, redacted headers, the body decoded per its charset, and the body's sha256. The governed
 * runner records results carrying `url` and `sha256` in `progress/sources.jsonl`.
 *
 * @example
 * const httpFetch = createHttpFetchTool({ policy: { allow: ['127.0.0.1:8080'], maxBytes: 2 << 20 } });
 */
export function createHttpFetchTool(
  options: HttpFetchToolOptions = {},
): Tool<z.output<typeof input>, HttpToolResponse> {
  const resolved = resolveNetworkOptions('http_fetch', options);
  return defineTool({
    name: 'http_fetch',
    description:
      'Fetch a web page or API response with GET. Returns the final URL, status, headers and the body as text ' +
      '(long bodies are cut; "truncated" says so). Private and local addresses are refused unless allowed.',
    input,
    effects: 'network',
    idempotent: true,
    timeoutMs: resolved.toolTimeoutMs,
    execute: async ({ url, headers }, { signal }) => {
      const response = await guardedFetch(url, {
        method: 'GET',
        headers: mergeHeaders(headers, resolved.headers),
        policy: resolved.policy,
        lookup: resolved.lookup,
        signal,
      });
      return renderResponse(response, { ...resolved, tool: 'http_fetch' });
    },
  });
}
