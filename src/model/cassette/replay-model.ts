import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import {
  APICallError,
  type LanguageModelV4,
  type LanguageModelV4CallOptions,
  type LanguageModelV4GenerateResult,
  type LanguageModelV4StreamPart,
} from '@ai-sdk/provider';
import { abortedError } from '../../core/clock.ts';
import { decodeJson } from '../../core/json-codec.ts';
import type { Redactor } from '../../core/redact.ts';
import { resultToStreamParts, streamPartsToResult } from '../stream-convert.ts';
import { createCallMatcher } from './call-matcher.ts';
import { type CassetteCall, type CassetteHeader, normalizeRequest } from './cassette-format.ts';
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
  const matcher = createCallMatcher(file, calls, options, 'model');
  const next = (callOptions: LanguageModelV4CallOptions): { call: CassetteCall; line: number } => {
    if (callOptions.abortSignal?.aborted) throw abortedError(callOptions.abortSignal);
    return matcher.next(normalizeRequest(callOptions), promptRefsOf(callOptions.providerOptions));
  };

  return {
    specificationVersion: 'v4',
    provider: header.provider,
    modelId: header.modelId,
    supportedUrls: {},
    header,
    callCount: calls.length,
    get served() {
      return matcher.served;
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

/** A recorded error, revived: provider errors come back as the AI SDK's own class, so they classify the same. */
export function revive(encoded: unknown): unknown {
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
