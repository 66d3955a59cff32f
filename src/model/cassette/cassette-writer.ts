import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Redactor } from '../../core/redact.ts';
import { CASSETTE_FORMAT, type CassetteCall, type CassetteHeader } from './cassette-format.ts';

// Response headers that help debugging and cannot carry credentials.
const KEPT_HEADERS =
  /^(content-type|request-id|x-request-id|openai-processing-ms|openai-version|anthropic-[a-z-]+|retry-after(-ms)?|x-ratelimit-[a-z-]+)$/i;

/** How a recording starts: after the calls already in the file, and the clock for the header's `createdAt`. */
export type CassetteWriteOptions = { append?: boolean; now?: () => number };

/** Appends calls to the cassette at `file`, writing its header first unless the cassette is being appended to. */
export function cassetteWriter(
  file: string,
  model: Pick<CassetteHeader, 'provider' | 'modelId' | 'maxEmbeddingsPerCall'>,
  options: CassetteWriteOptions,
  redactor: Redactor,
): (call: CassetteCall) => void {
  let started = Boolean(options.append) && existsSync(file);
  return (call) => {
    if (!started) {
      mkdirSync(dirname(file), { recursive: true });
      const header: CassetteHeader = {
        type: 'header',
        format: CASSETTE_FORMAT,
        provider: model.provider,
        modelId: model.modelId,
        ...(model.maxEmbeddingsPerCall === undefined ? {} : { maxEmbeddingsPerCall: model.maxEmbeddingsPerCall }),
        createdAt: new Date((options.now ?? Date.now)()).toISOString(),
      };
      writeFileSync(file, `${JSON.stringify(header)}\n`);
      started = true;
    }
    appendFileSync(file, `${JSON.stringify(redactor.redact(call))}\n`);
  };
}

/** The response without its body (which holds the raw provider payload). */
export function withoutBody<T extends { body?: unknown }>(response: T): Omit<T, 'body'> {
  const { body: _body, ...rest } = response;
  return rest;
}

/** Only the response headers that help debugging and cannot carry credentials. */
export function keepHeaders(headers: Record<string, string> | undefined): Record<string, string> | undefined {
  if (!headers) return undefined;
  return Object.fromEntries(Object.entries(headers).filter(([key]) => KEPT_HEADERS.test(key)));
}

/** How many calls the cassette at `file` holds already (0 when there is none). */
export function countCalls(file: string): number {
  if (!existsSync(file)) return 0;
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.includes('"type":"call"')).length;
}
