import { z } from 'zod';
import { AgencyError } from '../../core/errors.ts';
import { defineTool, type Tool } from '../define-tool.ts';
import { guardedFetch } from '../guards/network-fetch.ts';
import { type HttpToolResponse, renderResponse } from './http-response.ts';
import { mergeHeaders, type NetworkToolOptions, resolveNetworkOptions } from './network-options.ts';
import { positiveLimit } from './option-checks.ts';

/** Options for {@link createHttpPostTool}. */
export type HttpPostToolOptions = NetworkToolOptions & {
  /** The largest request body sent, in bytes. @default 1048576 (1 MiB) */
  maxRequestBytes?: number;
};

const input = z
  .object({
    url: z.string().min(1).describe('An http(s) URL'),
    json: z.unknown().optional().describe('A JSON value to send as application/json'),
    text: z.string().optional().describe('Text to send instead of json'),
    content_type: z
      .string()
      .regex(/^[\w.+-]+\/[\w.+-]+(\s*;\s*[\w-]+=[\w.-]+)*$/, 'must be a media type such as text/csv')
      .optional()
      .describe('Content type of "text". Default: text/plain; charset=utf-8'),
    headers: z.record(z.string(), z.string()).optional().describe('Extra request headers'),
  })
  .superRefine((value, context) => {
    if ((value.json === undefined) === (value.text === undefined)) {
      context.addIssue({ code: 'custom', path: ['json'], message: 'send exactly one of "json" or "text"' });
    }
  });

/**
 * `http_post` (effects `network`, not idempotent): POSTs JSON or text through the network guard and returns the
 * response as `http_fetch` does. A POST changes something elsewhere, so default policies ask a human first: the
 * strict preset requires approval for `http_post` and for every `network` tool. That is policy's job; this tool only
 * declares its effects honestly.
 *
 * @example
 * const httpPost = createHttpPostTool({ policy: { allow: ['hooks.internal.example'] } });
 */
export function createHttpPostTool({ maxRequestBytes = 1024 * 1024, ...options }: HttpPostToolOptions = {}): Tool<
  z.output<typeof input>,
  HttpToolResponse
> {
  positiveLimit('http_post', 'maxRequestBytes', maxRequestBytes);
  const resolved = resolveNetworkOptions('http_post', options);
  return defineTool({
    name: 'http_post',
    description:
      'Send a POST request with a JSON ("json") or text ("text") body. It changes things elsewhere, so it may ' +
      'need approval. Returns the final URL, status, headers and the response body as text.',
    input,
    effects: 'network',
    idempotent: false,
    timeoutMs: resolved.toolTimeoutMs,
    execute: async ({ url, json, text, content_type, headers }, { signal }) => {
      const body = json === undefined ? (text ?? '') : JSON.stringify(json);
      const type = json === undefined ? (content_type ?? 'text/plain; charset=utf-8') : 'application/json';
      const bytes = Buffer.byteLength(body, 'utf8');
      if (bytes > maxRequestBytes) {
        throw new AgencyError(
          'limit_exceeded',
          `The request body is ${bytes} bytes, over the ${maxRequestBytes}-byte limit; send less`,
          { details: { bytes, maxRequestBytes } },
        );
      }
      const response = await guardedFetch(url, {
        method: 'POST',
        headers: { ...mergeHeaders(headers, resolved.headers), 'content-type': type },
        body,
        policy: resolved.policy,
        lookup: resolved.lookup,
        signal,
      });
      return renderResponse(response, { ...resolved, tool: 'http_post' });
    },
  });
}
