import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import {
  APICallError,
  type LanguageModelV4,
  type LanguageModelV4CallOptions,
  type LanguageModelV4GenerateResult,
  type LanguageModelV4StreamPart,
} from '@ai-sdk/provider';
import { canonicalJson } from '../../core/canonical-json.ts';
import { abortedError } from '../../core/clock.ts';
import { AgencyError } from '../../core/errors.ts';
import { decodeJson } from '../../core/json-codec.ts';
import { defaultRedactor, type Redactor } from '../../core/redact.ts';
import { resultToStreamParts, streamPartsToResult } from '../stream-convert.ts';
import {
  type CassetteCall,
  type CassetteHeader,
  firstDifference,
  normalizeRequest,
  preview,
  requestDigest,
} from './cassette-format.ts';
import { readCassette } from './read-cassette.ts';
import { promptRefsOf } from '../prompt-refs.ts';

/** Options for {@link replayModel}. */
export type ReplayModelOptions = {
  /** Match calls by order only, ignoring request content. @default false */
  lenient?: boolean;
  /** Relative paths resolve against this directory. @default process.cwd() */
  cwd?: string;
  /**
   * Applied to each live request before it is compared, as `recordModel` applied it before recording, so requests
   * that carried a secret still match, and a mismatch message never prints the live secret. @default defaultRedactor
   */
  redactor?: Redactor;
};

/** A model that serves a cassette, plus what it has served. */
export type ReplayModel = LanguageModelV4 & {
  /** The cassette's header. */
  readonly header: CassetteHeader;
  /** How many calls the cassette holds. */
  readonly callCount: number;
  /** How many calls have been served so far. */
  readonly served: number;
};

/**
 * Serves a cassette recorded by `recordModel`, offline and deterministically, for streaming and non-streaming calls
 * alike (a call recorded one way is converted for the other). In strict mode each request must match a recorded
 * request: normally the next one in order; a run resumed part-way continues from the recorded call it matches. A
 * request that matches nothing fails, naming the first field that differs from the next recorded call. Lenient
 * mode serves calls by order only.
 *
 * @throws AgencyError `cassette_not_found`, or `cassette_corrupt` naming the bad line, when the file cannot be used.
 */
export function replayModel(path: string, options: ReplayModelOptions = {}): ReplayModel {
  const file = resolve(options.cwd ?? process.cwd(), path);
  const { header, calls } = readCassette(file, readFileSync);
  let served = 0;

  const redactor = options.redactor ?? defaultRedactor;
  const used = new Set<number>();
  const next = (callOptions: LanguageModelV4CallOptions): { call: CassetteCall; line: number } => {
    if (callOptions.abortSignal?.aborted) throw abortedError(callOptions.abortSignal);
    const index = served;
    let entry = calls[index];
    if (!options.lenient) {
      const request = redactor.redact(normalizeRequest(callOptions));
      const digest = requestDigest(request);
      if (entry?.call.digest !== digest) {
        // A run resumed after a crash starts part-way through the recording: find the call it is making.
        const found = calls.findIndex((candidate, at) => candidate.call.digest === digest && !used.has(at));
        const anywhere = found >= 0 ? found : calls.findIndex((candidate) => candidate.call.digest === digest);
        if (anywhere < 0) {
          // In order, the next recorded call is the one to compare with; in a fresh process (perhaps a resumed
          // run) it is the recorded call most like this request.
          const nearest = index > 0 ? entry : closestCall(calls, request);
          if (nearest) {
            checkPrompts(file, nearest.call, nearest.line, promptRefsOf(callOptions.providerOptions));
            checkMatch(file, nearest.call, nearest.line, request, index > 0 ? undefined : index);
          }
          throw exhausted(file, index, calls.length);
        }
        served = anywhere;
        entry = calls[anywhere];
      }
    }
    if (!entry) throw exhausted(file, index, calls.length);
    used.add(served);
    served++;
    return entry;
  };

  return {
    specificationVersion: 'v4',
    provider: header.provider,
    modelId: header.modelId,
    supportedUrls: {},
    header,
    callCount: calls.length,
    get served() {
      return served;
    },
    async doGenerate(callOptions) {
      const { call } = next(callOptions);
      if (call.stream !== undefined) {
        if (call.error !== undefined) throw revive(call.error);
        return streamPartsToResult(call.stream.map(decodeJson) as LanguageModelV4StreamPart[]);
      }
      if (call.error !== undefined) throw revive(call.error);
      return decodeJson(call.response) as LanguageModelV4GenerateResult;
    },
    async doStream(callOptions) {
      const { call } = next(callOptions);
      if (call.stream === undefined && call.error !== undefined) throw revive(call.error);
      const parts =
        call.stream === undefined
          ? resultToStreamParts(decodeJson(call.response) as LanguageModelV4GenerateResult)
          : (call.stream.map(decodeJson) as LanguageModelV4StreamPart[]);
      const error = call.stream !== undefined && call.error !== undefined ? revive(call.error) : undefined;
      return { stream: partsStream(parts, error, callOptions.abortSignal) };
    },
  };
}

function exhausted(file: string, index: number, recorded: number): AgencyError {
  return new AgencyError(
    'cassette_exhausted',
    `Cassette ${file} recorded ${recorded} call(s), but call #${index} was made. ` +
      'The run made more model calls than the recording; re-record the cassette.',
    { details: { file, index, recorded } },
  );
}

/**
 * A call that does not match because a prompt template changed version: says which, and the two ways out (pin the
 * recorded version, or record again). Calls recorded without prompt names fall through to the field comparison.
 */
function checkPrompts(file: string, call: CassetteCall, line: number, live: string[] | undefined): void {
  if (!call.prompts || !live) return;
  const versionOf = (refs: string[]) => new Map(refs.map((ref) => [ref.slice(0, ref.lastIndexOf('@')), ref]));
  const recorded = versionOf(call.prompts);
  const changed = [...versionOf(live)].filter(([id, ref]) => recorded.has(id) && recorded.get(id) !== ref);
  if (changed.length === 0) return;
  const was = changed.map(([id]) => recorded.get(id) as string);
  const now = changed.map(([, ref]) => ref);
  const pins = was.map((ref) => `--prompt ${ref}`).join(' ');
  throw new AgencyError(
    'cassette_mismatch',
    `Cassette ${file} line ${line}: call #${call.index} was recorded with prompt ${was.join(', ')}, this run uses ` +
      `${now.join(', ')}. Pin the recorded version (agency run … ${pins}, or the runner's promptVersions option), ` +
      'or re-record the cassette with this version (agency run … --record <cassette>).',
    { details: { file, line, index: call.index, field: 'prompts', recorded: was, used: now } },
  );
}

function checkMatch(
  file: string,
  call: CassetteCall,
  line: number,
  actual: Record<string, unknown>,
  searchedFrom?: number,
): void {
  if (requestDigest(actual) === call.digest) return;
  const diff = firstDifference(call.request, actual);
  const where = diff ? `at "${diff.path}"${describeDifference(diff.recorded, diff.actual)}` : '(digest only)';
  const what =
    searchedFrom === undefined
      ? `call #${call.index} differs from the recording ${where}`
      : `no recorded call matches call #${searchedFrom}; the closest, call #${call.index}, differs ${where}`;
  throw new AgencyError(
    'cassette_mismatch',
    `Cassette ${file} line ${line}: ${what}. Re-record the cassette, or replay leniently to match calls by order only.`,
    { details: { file, line, index: call.index, field: diff?.path } },
  );
}

// Two long strings usually differ far from their start, so both are shown from a little before the first change.
function describeDifference(recorded: unknown, actual: unknown): string {
  if (typeof recorded !== 'string' || typeof actual !== 'string') {
    return `: recorded ${preview(recorded)}, got ${preview(actual)}`;
  }
  const at = commonPrefixLength(recorded, actual);
  if (at < 40) return `: recorded ${preview(recorded)}, got ${preview(actual)}`;
  const from = at - 30;
  return ` (character ${at}): recorded …${preview(recorded.slice(from))}, got …${preview(actual.slice(from))}`;
}

// The recorded call whose canonical request shares the longest prefix with this one.
function closestCall<T extends { call: CassetteCall }>(calls: readonly T[], request: unknown): T | undefined {
  const wanted = canonicalJson(request);
  let best: T | undefined;
  let bestLength = -1;
  for (const candidate of calls) {
    const length = commonPrefixLength(wanted, canonicalJson(candidate.call.request));
    if (length > bestLength) [best, bestLength] = [candidate, length];
  }
  return best;
}

function commonPrefixLength(a: string, b: string): number {
  let length = 0;
  while (length < a.length && a.charCodeAt(length) === b.charCodeAt(length)) length++;
  return length;
}

function partsStream(
  parts: LanguageModelV4StreamPart[],
  error: unknown,
  signal: AbortSignal | undefined,
): ReadableStream<LanguageModelV4StreamPart> {
  let index = 0;
  return new ReadableStream({
    pull(controller) {
      if (signal?.aborted) {
        controller.error(abortedError(signal));
        return;
      }
      const part = parts[index++];
      if (part) controller.enqueue(part);
      else if (error !== undefined) controller.error(error);
      else controller.close();
    },
  });
}

// Recorded provider errors come back as the AI SDK's own error class, so classification works the same on replay.
function revive(encoded: unknown): unknown {
  const error = decodeJson(encoded);
  if (!(error instanceof Error) || error.name !== 'AI_APICallError') return error;
  const fields = error as Error & Partial<APICallError>;
  return new APICallError({
    message: error.message,
    url: fields.url ?? '',
    requestBodyValues: fields.requestBodyValues,
    ...(fields.statusCode === undefined ? {} : { statusCode: fields.statusCode }),
    ...(fields.responseHeaders === undefined ? {} : { responseHeaders: fields.responseHeaders }),
    ...(fields.responseBody === undefined ? {} : { responseBody: fields.responseBody }),
    ...(fields.isRetryable === undefined ? {} : { isRetryable: fields.isRetryable }),
    ...(fields.data === undefined ? {} : { data: fields.data }),
  });
}
