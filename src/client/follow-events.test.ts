// How the event iterator reconnects, against scripted answers: what it resumes from, what it skips, what it gives up
// on, and how it stops. test/e2e/client-stream-reconnect.test.ts drives it against the real server over sockets.
import { describe, expect, it } from 'vitest';
import { AgencyError } from '../core/errors.ts';
import type { EventFrame } from '../task/contracts/events.ts';
import { createClient } from './create-client.ts';
import type { ReconnectInfo } from './follow-events.ts';
import { createSseParser } from './sse-parser.ts';

const TASK = 'task_01ARZ3NDEKTSV4RRFFQ69G5FAV';
const frame = (seq: number): EventFrame => ({
  version: 'agent.events.v1',
  id: `evt_01ARZ3NDEKTSV4RRFFQ69G${String(seq).padStart(4, '0')}`,
  seq,
  ts: '2026-01-01T00:00:00.000Z',
  type: seq === 5 ? 'finish' : 'warning',
});
const sse = (seqs: number[], { end = false } = {}) =>
  `retry: 1000\n: open\n\n${seqs.map((seq) => `id: ${seq}\ndata: ${JSON.stringify(frame(seq))}\n\n`).join('')}${end ? 'event: end\ndata: {}\n\n' : ''}`;

type Answer = string | Response | Error;

// A fetch that plays one answer per request and records the Last-Event-ID of each.
function scripted(answers: Answer[]) {
  const asked: Array<string | null> = [];
  const client = createClient({
    baseUrl: 'http://agency.test',
    token: 'token',
    fetch: async (_url, init) => {
      asked.push(new Headers(init.headers).get('last-event-id'));
      const answer = answers.shift() ?? new Error('no more answers');
      if (answer instanceof Error) throw new TypeError('fetch failed', { cause: answer });
      if (answer instanceof Response) return answer;
      return new Response(answer, { headers: { 'content-type': 'text/event-stream' } });
    },
  });
  return { client, asked };
}

async function collect(events: AsyncIterable<EventFrame>): Promise<number[]> {
  const seqs: number[] = [];
  for await (const item of events) seqs.push(item.seq);
  return seqs;
}

const fast = { initialDelayMs: 1, maxDelayMs: 2 };

describe('client.tasks.events', () => {
  it('resumes after the last frame it yielded, skips frames replayed twice, and ends at the end event', async () => {
    const { client, asked } = scripted([
      sse([1, 2]), // the stream ends without `end`: a drop
      new Error('ECONNRESET'),
      sse([2, 3]), // a frame seen already is not yielded again
      new Response(JSON.stringify({ error: 'service_unavailable', message: 'busy', details: {} }), { status: 503 }),
      sse([4, 5], { end: true }),
    ]);
    const reconnects: ReconnectInfo[] = [];
    const seqs = await collect(
      client.tasks.events(TASK, { reconnect: fast, onReconnect: (info) => reconnects.push(info) }),
    );
    expect(seqs).toEqual([1, 2, 3, 4, 5]);
    expect(asked).toEqual([null, '2', '2', '3', '3']);
    expect(reconnects.map((info) => [info.attempt, info.after, info.error.code])).toEqual([
      [1, 2, 'network_failed'],
      [2, 2, 'network_failed'],
      [1, 3, 'network_failed'],
      [2, 3, 'http_error'],
    ]);
  });

  it('starts after `after`, and gives up after maxAttempts failures in a row with the last error', async () => {
    const { client, asked } = scripted([new Error('down'), new Error('down'), new Error('still down')]);
    const error = await collect(client.tasks.events(TASK, { after: 7, reconnect: { ...fast, maxAttempts: 2 } })).catch(
      (thrown: unknown) => thrown,
    );
    expect(asked).toEqual(['7', '7', '7']);
    expect(AgencyError.hasCode(error, 'network_failed') && error.message).toContain('still down');
  });

  it('throws a refusal at once: a wrong token or an unknown task is not retried', async () => {
    const refusal = (status: number, error: string) =>
      new Response(JSON.stringify({ error, message: error, details: { retryable: false } }), { status });
    for (const [status, code] of [
      [401, 'unauthorized'],
      [404, 'not_found'],
    ] as const) {
      const { client, asked } = scripted([sse([1]), refusal(status, code)]);
      const error = await collect(client.tasks.events(TASK, { reconnect: fast })).catch((thrown: unknown) => thrown);
      expect(asked).toHaveLength(2);
      expect((error as AgencyError).details).toMatchObject({ status });
    }
  });

  it('stops with `aborted` when its signal aborts, while reading or while waiting to reconnect', async () => {
    const reading = new AbortController();
    const open = new ReadableStream<Uint8Array>({
      start: (stream) => stream.enqueue(new TextEncoder().encode(sse([1]))),
    });
    const { client } = scripted([new Response(open)]);
    const seen: number[] = [];
    const error = await (async () => {
      for await (const item of client.tasks.events(TASK, { signal: reading.signal })) {
        seen.push(item.seq);
        reading.abort();
      }
    })().catch((thrown: unknown) => thrown);
    expect(seen).toEqual([1]);
    expect(AgencyError.hasCode(error, 'aborted')).toBe(true);

    const waiting = new AbortController();
    const down = scripted([new Error('down')]);
    const events = down.client.tasks.events(TASK, {
      signal: waiting.signal,
      reconnect: { initialDelayMs: 60_000 },
      onReconnect: () => waiting.abort(),
    });
    expect(AgencyError.hasCode(await collect(events).catch((thrown: unknown) => thrown), 'aborted')).toBe(true);
  });

  it('refuses a frame that does not match the journal schema', async () => {
    const { client } = scripted([`id: 1\ndata: {"seq":1}\n\n`]);
    const error = await collect(client.tasks.events(TASK)).catch((thrown: unknown) => thrown);
    expect(AgencyError.hasCode(error, 'response_invalid')).toBe(true);
  });
});

describe('the SSE parser', () => {
  it('reads events, comments and multi-line data across chunks and line ends', () => {
    const parser = createSseParser();
    const text =
      ': open\r\n\r\nid: 1\r\ndata: a\r\ndata: b\r\n\r\nevent: end\ndata: {}\n\nid: 2\rdata:c\r\r: heartbeat\n';
    const messages = [...text].flatMap((char) => parser.feed(char));
    expect(messages).toEqual([
      { kind: 'comment' },
      { kind: 'event', id: '1', event: 'message', data: 'a\nb' },
      { kind: 'event', id: undefined, event: 'end', data: '{}' },
      { kind: 'event', id: '2', event: 'message', data: 'c' },
      { kind: 'comment' },
    ]);
  });
});
