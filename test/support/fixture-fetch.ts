import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The recorded provider responses, copied beside the model layer's tests. */
export const FIXTURES_DIR = join(import.meta.dirname, '../../src/model/__fixtures__');

/** One HTTP response to serve. */
export type RecordedResponse = { status: number; body: string; contentType: string };

/** A fetch that serves recorded responses in order and remembers the requests it received. */
export type FixtureFetch = typeof globalThis.fetch & {
  requests: Array<{ url: string; body: unknown; headers: Record<string, string> }>;
};

/** Reads a fixture file as text. */
export function fixtureText(relativePath: string): string {
  return readFileSync(join(FIXTURES_DIR, relativePath), 'utf8');
}

/** A non-streaming JSON body. */
export function jsonResponse(relativePath: string, status = 200): RecordedResponse {
  return { status, body: fixtureText(relativePath), contentType: 'application/json' };
}

/** A verbatim SSE wire body (`.sse`, `.txt`). */
export function sseResponse(relativePath: string): RecordedResponse {
  return { status: 200, body: fixtureText(relativePath), contentType: 'text/event-stream' };
}

/**
 * SSE bodies rebuilt from a `.chunks.txt` file (one JSON payload per line). A file holding several consecutive
 * Responses-API streams is split at each `response.created`. Chat Completions streams end with `[DONE]`.
 */
export function chunkResponses(relativePath: string, { done = false } = {}): RecordedResponse[] {
  const lines = fixtureText(relativePath)
    .split('\n')
    .filter((line) => line.trim() !== '');
  const streams: string[][] = [];
  for (const line of lines) {
    if (streams.length === 0 || line.includes('"type":"response.created"')) streams.push([]);
    streams.at(-1)?.push(line);
  }
  return streams.map((stream) => ({
    status: 200,
    contentType: 'text/event-stream',
    body: `${stream.map((line) => `data: ${line}\n\n`).join('')}${done ? 'data: [DONE]\n\n' : ''}`,
  }));
}

/** A fetch serving `responses` in order; a call beyond them fails the test loudly. */
export function fixtureFetch(responses: RecordedResponse[]): FixtureFetch {
  const queue = [...responses];
  const requests: FixtureFetch['requests'] = [];
  const fetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const url = input instanceof Request ? input.url : String(input);
    const text = typeof init?.body === 'string' ? init.body : '';
    requests.push({
      url,
      body: text ? JSON.parse(text) : undefined,
      headers: Object.fromEntries(new Headers(init?.headers)),
    });
    const next = queue.shift();
    if (!next) throw new Error(`fixtureFetch: unexpected request #${requests.length} to ${url}`);
    return new Response(next.body, { status: next.status, headers: { 'content-type': next.contentType } });
  };
  const served: FixtureFetch = Object.assign(fetch, { requests });
  return served;
}
