import type { LanguageModelV4, LanguageModelV4StreamPart } from '@ai-sdk/provider';
import { sha256Hex } from '../../src/core/sha256.ts';

/**
 * Wraps a model so that it sees the site at `recorded` while the task's tools reach it at `actual`. Requests have
 * `actual` replaced by `recorded` in every string before the model gets them; answers have `recorded` replaced by
 * `actual`. A cassette recorded with one address then replays, still strictly, whatever port the site is served on,
 * and a run being recorded writes the recorded address to the cassette.
 *
 * What the tools derive from text holding the address must be translated too:
 * - sizes: the two addresses must be the same length, so a file's bytes or a line's length are the same either way;
 * - digests: a tool that reports the sha256 of a file holding the address (fs_read of task/links.txt, fs_write of
 *   the brief) reports the digest of the file as served. Every string of the traffic that holds either address,
 *   including the strings inside a tool call's JSON input, is hashed in both forms, and a digest of one form is
 *   swapped for the digest of the other as it crosses. A digest of text that never crossed whole (a ranged read of
 *   a long file) is not known, and the strict replay then names it as the first difference.
 */
export function rehostModel(
  model: LanguageModelV4,
  { recorded, actual }: { recorded: string; actual: string },
): LanguageModelV4 {
  if (recorded === actual) return model;
  if (recorded.length !== actual.length) {
    throw new Error(`rehostModel: "${actual}" and "${recorded}" differ in length; sizes in the requests would change`);
  }
  const toRecordedDigest = new Map<string, string>();
  const toActualDigest = new Map<string, string>();
  const learn = (text: string) => {
    if (!text.includes(actual) && !text.includes(recorded)) return;
    const asServed = sha256Hex(text.replaceAll(recorded, actual));
    const asRecorded = sha256Hex(text.replaceAll(actual, recorded));
    toRecordedDigest.set(asServed, asRecorded);
    toActualDigest.set(asRecorded, asServed);
  };
  const toModel = <T>(value: T): T => {
    visitStrings(value, learn);
    return mapStrings(value, (text) => toRecordedDigest.get(text) ?? text.replaceAll(actual, recorded));
  };
  const toTools = <T>(value: T): T => {
    visitStrings(value, learn);
    return mapStrings(value, (text) => toActualDigest.get(text) ?? text.replaceAll(recorded, actual));
  };
  return {
    specificationVersion: 'v4',
    provider: model.provider,
    modelId: model.modelId,
    supportedUrls: model.supportedUrls,
    doGenerate: async (options) => toTools(await model.doGenerate(toModel(options))),
    doStream: async (options) => {
      const result = await model.doStream(toModel(options));
      const rewrite = new TransformStream<LanguageModelV4StreamPart, LanguageModelV4StreamPart>({
        transform: (part, controller) => controller.enqueue(toTools(part)),
      });
      return { ...result, stream: result.stream.pipeThrough(rewrite) };
    },
  };
}

// Only plain objects and arrays are walked; anything else (an AbortSignal, bytes, a URL, a Date) is left as it is.
function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object') return false;
  const prototype = Object.getPrototypeOf(value) as unknown;
  return prototype === Object.prototype || prototype === null;
}

function mapStrings<T>(value: T, map: (text: string) => string): T {
  if (typeof value === 'string') return map(value) as T;
  if (Array.isArray(value)) return value.map((item: unknown) => mapStrings(item, map)) as T;
  if (!isPlainObject(value)) return value;
  const copy: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) copy[key] = mapStrings(item, map);
  return copy as T;
}

// Calls `visit` on every string, and on the strings inside any string that is a JSON object or array (a tool
// call's input).
function visitStrings(value: unknown, visit: (text: string) => void): void {
  if (typeof value === 'string') {
    visit(value);
    if (/^\s*[[{]/.test(value)) {
      let parsed: unknown;
      try {
        parsed = JSON.parse(value);
      } catch {
        return;
      }
      visitStrings(parsed, visit);
    }
  } else if (Array.isArray(value)) {
    for (const item of value) visitStrings(item, visit);
  } else if (isPlainObject(value)) {
    for (const item of Object.values(value)) visitStrings(item, visit);
  }
}
