import { sha256Hex } from '../../core/sha256.ts';
import { AgencyError } from '../../core/errors.ts';
import { isSensitiveKey, REDACTED } from '../../core/redact.ts';
import type { GuardedResponse } from '../guards/network-fetch.ts';
import { binaryOffset, bomCharset, cutText, decodeUtf8, decodeWith } from './text-content.ts';

/** What the HTTP tools do with a binary response body. */
export type BinaryBodyMode = 'refuse' | 'base64';

/** A response as the HTTP tools return it. `url`, `body` and `sha256` are what the governed runner cites. */
export type HttpToolResponse = {
  /** The final URL, after redirects. */
  url: string;
  status: number;
  /** Response headers, lower-case, with secrets (`set-cookie`, `authorization`, `x-api-key`…) redacted. */
  headers: Record<string, string>;
  content_type: string;
  /** The body decoded as text per its charset, or base64 for binary bodies when configured; cut at the limit. */
  body: string;
  encoding: 'text' | 'base64';
  /** Size of the whole body in bytes. */
  bytes: number;
  /** sha256 of the whole body bytes, in hex. */
  sha256: string;
  /** The body was cut to the character limit. */
  truncated: boolean;
  /** URLs that answered with a redirect, in order. */
  redirects: string[];
  note?: string;
};

/** Limits for turning a response into a {@link HttpToolResponse}. */
export type RenderOptions = { maxBodyChars: number; binary: BinaryBodyMode; tool: string };

const TEXT_TYPES =
  /^(text\/|application\/(json|javascript|ecmascript|xml|x-www-form-urlencoded|x-ndjson|yaml|x-yaml|toml|csv|graphql|sql)$)|\+(json|xml)$/;
const BINARY_TYPES =
  /^(image|audio|video|font)\/|^application\/(pdf|zip|gzip|x-gzip|x-bzip2|x-xz|x-7z-compressed|x-tar|wasm|msword|vnd\.)/;

/** Turns a guarded response into what the model sees: decoded text, redacted headers, a hash of the raw bytes. */
export function renderResponse(response: GuardedResponse, options: RenderOptions): HttpToolResponse {
  const contentType = response.headers['content-type'] ?? '';
  const mime = contentType.split(';')[0]?.trim().toLowerCase() ?? '';
  const bytes = response.body;
  const base = {
    url: response.url,
    status: response.status,
    headers: redactHeaders(response.headers),
    content_type: contentType,
    bytes: bytes.byteLength,
    sha256: sha256Hex(bytes),
    redirects: response.redirects,
  };
  const decoded = decodeBody(bytes, mime, charsetOf(contentType));
  if (decoded !== undefined) {
    const { text, truncated } = cutText(decoded.text, options.maxBodyChars);
    return { ...base, body: text, encoding: 'text', truncated, ...(decoded.note ? { note: decoded.note } : {}) };
  }
  const what = `${mime || 'an unlabelled type'}, ${bytes.byteLength} bytes`;
  if (options.binary === 'refuse') {
    throw new AgencyError(
      'content_not_text',
      `${response.url} returned binary content (${what}); ${options.tool} returns text only. Fetch a text version ` +
        'of the resource instead (HTML, JSON, plain text).',
      { details: { url: response.url, status: response.status, contentType, bytes: bytes.byteLength } },
    );
  }
  const { text, truncated } = cutText(Buffer.from(bytes).toString('base64'), options.maxBodyChars);
  return { ...base, body: text, encoding: 'base64', truncated, note: `Binary body (${what}) returned as base64.` };
}

/** Response headers with the values of secret-bearing headers replaced by `[REDACTED]`. */
export function redactHeaders(headers: Readonly<Record<string, string>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) out[name] = isSensitiveKey(name) ? REDACTED : value;
  return out;
}

function decodeBody(bytes: Uint8Array, mime: string, charset: string | undefined) {
  if (bytes.byteLength === 0) return { text: '' };
  const textual = TEXT_TYPES.test(mime);
  if (!textual && BINARY_TYPES.test(mime)) return undefined;
  const label = bomCharset(bytes) ?? charset ?? (mime === 'text/html' ? metaCharset(bytes) : undefined);
  // UTF-16 text is full of NUL bytes; anything else with one is binary whatever its label says.
  if (!(label !== undefined && /^utf-?16/i.test(label)) && binaryOffset(bytes) >= 0) return undefined;
  if (label === undefined) {
    if (textual) return { text: new TextDecoder('utf-8').decode(bytes) };
    // Unlabelled or generic types (application/octet-stream) count as text only when they are strict UTF-8.
    const strict = decodeUtf8(bytes);
    return strict === undefined ? undefined : { text: strict };
  }
  const text = decodeWith(bytes, label);
  if (text !== undefined) return { text };
  return {
    text: new TextDecoder('utf-8').decode(bytes),
    note: `Unknown charset ${JSON.stringify(label)}; decoded as UTF-8.`,
  };
}

function charsetOf(contentType: string): string | undefined {
  const match = /;\s*charset\s*=\s*("?)([^";\s]+)\1/i.exec(contentType);
  return match?.[2];
}

function metaCharset(bytes: Uint8Array): string | undefined {
  const head = Buffer.from(bytes.subarray(0, 1024)).toString('latin1');
  return /<meta[^>]+charset\s*=\s*["']?([\w.:-]+)/i.exec(head)?.[1];
}
