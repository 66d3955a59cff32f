import type { EmbeddingModelV4CallOptions, LanguageModelV4CallOptions } from '@ai-sdk/provider';
import { z } from 'zod';
import { canonicalDigest } from '../../core/canonical-json.ts';
import { encodeJson } from '../../core/json-codec.ts';
import { withoutPromptRefs } from '../prompt-refs.ts';

/** The format name written in every cassette header. */
export const CASSETTE_FORMAT = 'agency.cassette.v1';

/** Line 1 of a cassette. */
export const cassetteHeaderSchema = z.object({
  type: z.literal('header'),
  format: z.literal(CASSETTE_FORMAT),
  provider: z.string().min(1),
  modelId: z.string().min(1),
  createdAt: z.string(),
  /** An embedding model's limit of texts per call, so a replay splits a batch as the recording did. */
  maxEmbeddingsPerCall: z.number().int().positive().optional(),
});

/**
 * Every later line: one model call. `response`, `stream` and `error` hold JSON-codec encoded values. An `embed` call
 * comes from an embedding model (`recordEmbeddingModel`); its `response` holds the vectors.
 */
export const cassetteCallSchema = z
  .object({
    type: z.literal('call'),
    index: z.number().int().nonnegative(),
    mode: z.enum(['generate', 'stream', 'embed']),
    digest: z.string().regex(/^[0-9a-f]{64}$/, 'must be a sha256 hex digest'),
    request: z.record(z.string(), z.unknown()),
    /** The prompt templates (`id@version`) the call was built from, when it named them; not part of the digest. */
    prompts: z.array(z.string().max(200)).max(100).optional(),
    response: z.unknown().optional(),
    stream: z.array(z.unknown()).optional(),
    error: z.unknown().optional(),
  })
  .refine((call) => call.response !== undefined || call.stream !== undefined || call.error !== undefined, {
    message: 'a call needs "response", "stream" or "error"',
  });

/** A cassette header. */
export type CassetteHeader = z.infer<typeof cassetteHeaderSchema>;
/** A recorded call. */
export type CassetteCall = z.infer<typeof cassetteCallSchema>;

// Transport details are not part of what the model is asked: they never reach the cassette.
const TRANSPORT_KEYS = new Set(['abortSignal', 'headers', 'includeRawChunks']);

/**
 * The request as recorded: the call options without transport details (abort signal, headers, raw-chunk flag),
 * with bytes, URLs and dates in their JSON-codec form and `undefined` fields dropped. The prompt templates a call
 * names (`providerOptions.agency`) are left out too: they are recorded beside the request (see `promptRefsOf`), so a
 * cassette recorded before they were named still matches.
 */
export function normalizeRequest(
  options: LanguageModelV4CallOptions | EmbeddingModelV4CallOptions,
): Record<string, unknown> {
  const kept: Record<string, unknown> = {};
  for (const [key, raw] of Object.entries(options)) {
    const value = key === 'providerOptions' ? withoutPromptRefs(raw) : raw;
    if (!TRANSPORT_KEYS.has(key) && value !== undefined) kept[key] = value;
  }
  return JSON.parse(JSON.stringify(encodeJson(kept))) as Record<string, unknown>;
}

/** The digest that identifies a normalized request. */
export function requestDigest(normalized: Record<string, unknown>): string {
  return canonicalDigest(normalized);
}

/**
 * The path of the first field where two JSON values differ, e.g. `prompt[1].content[0].text`, with both values.
 * Returns undefined when they are equal.
 */
export function firstDifference(
  recorded: unknown,
  actual: unknown,
  path = '',
): { path: string; recorded: unknown; actual: unknown } | undefined {
  if (Object.is(recorded, actual)) return undefined;
  const bothArrays = Array.isArray(recorded) && Array.isArray(actual);
  const bothObjects = isPlainObject(recorded) && isPlainObject(actual);
  if (bothArrays) {
    const length = Math.max(recorded.length, actual.length);
    for (let i = 0; i < length; i++) {
      const diff = firstDifference(recorded[i], actual[i], `${path}[${i}]`);
      if (diff) return diff;
    }
    return undefined;
  }
  if (bothObjects) {
    const keys = [...new Set([...Object.keys(recorded), ...Object.keys(actual)])].sort();
    for (const key of keys) {
      const diff = firstDifference(recorded[key], actual[key], path === '' ? key : `${path}.${key}`);
      if (diff) return diff;
    }
    return undefined;
  }
  return { path: path === '' ? '(root)' : path, recorded, actual };
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A short rendering of a value for an error message. */
export function preview(value: unknown, max = 80): string {
  if (value === undefined) return '(absent)';
  const text = JSON.stringify(value);
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
