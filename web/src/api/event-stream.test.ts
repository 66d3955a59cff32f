import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createSeqLog } from '../lib/seq-log.ts';
import { openEventStream, type EventSourceLike, type StreamState } from './event-stream.ts';
import type { EventFrame } from './types.ts';

class FakeSource implements EventSourceLike {
  readyState = 0;
  onopen: ((event: Event) => void) | null = null;
  onmessage: ((event: MessageEvent<string>) => void) | null = null;
  onerror: ((event: Event) => void) | null = null;
  closed = false;
  private endListener: (() => void) | undefined;
  readonly url: string;
  constructor(url: string) {
    this.url = url;
  }
  addEventListener(_type: 'end', listener: () => void): void {
    this.endListener = listener;
  }
  close(): void {
    this.closed = true;
    this.readyState = 2;
  }
  open(): void {
    this.readyState = 1;
    this.onopen?.(new Event('open'));
  }
  send(seq: number): void {
    const frame: EventFrame = {
      version: 'agent.events.v1',
      id: `evt_${String(seq).padStart(26, '0')}`,
      seq,
      ts: '2026-11-21T12:00:00.000Z',
      type: 'warning',
    };
    this.onmessage?.(new MessageEvent('message', { data: JSON.stringify(frame) }));
  }
  drop(browserRetries: boolean): void {
    this.readyState = browserRetries ? 0 : 2;
    this.onerror?.(new Event('error'));
  }
  end(): void {
    this.endListener?.();
  }
}

describe('openEventStream', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('resumes after drops without losing or repeating a frame, and stops at the end', () => {
    const sources: FakeSource[] = [];
    const states: StreamState[] = [];
    const log = createSeqLog();
    let dropped = 0;
    openEventStream({
      url: (after) => `/agent/tasks/t/events${after ? `?after=${after}` : ''}`,
      lastSeq: log.lastSeq,
      onFrame: (frame) => void log.add(frame),
      onState: (state) => states.push(state),
      onDropped: () => dropped++,
      createSource: (url) => {
        const source = new FakeSource(url);
        sources.push(source);
        return source;
      },
    });
    const first = sources[0]!;
    first.open();
    first.send(1);
    first.send(2);
    // The browser retries by itself: same source, and the server replays 2.
    first.drop(true);
    first.open();
    first.send(2);
    first.send(3);
    // The browser gives up: the stream reopens itself from seq 3 after a pause.
    first.drop(false);
    expect(sources).toHaveLength(1);
    vi.advanceTimersByTime(1_000);
    const second = sources[1]!;
    expect(second.url).toBe('/agent/tasks/t/events?after=3');
    second.open();
    second.send(3);
    second.send(4);
    second.end();
    expect(second.closed).toBe(true);
    expect(log.frames().map((frame) => frame.seq)).toEqual([1, 2, 3, 4]);
    expect(dropped).toBe(1);
    expect(states).toEqual(['connecting', 'live', 'reconnecting', 'live', 'reconnecting', 'live', 'ended']);
  });

  it('closes on request and does not reopen', () => {
    const sources: FakeSource[] = [];
    const stream = openEventStream({
      url: () => '/events',
      lastSeq: () => 0,
      onFrame: () => {},
      onState: () => {},
      createSource: (url) => {
        const source = new FakeSource(url);
        sources.push(source);
        return source;
      },
    });
    stream.close();
    sources[0]!.drop(false);
    vi.advanceTimersByTime(60_000);
    expect(sources).toHaveLength(1);
    expect(sources[0]!.closed).toBe(true);
  });
});
