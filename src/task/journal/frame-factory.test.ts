import { describe, expect, it } from 'vitest';
import { isId } from '../../core/ids.ts';
import { eventFrameSchema } from '../contracts/events.ts';
import { createFrameFactory, createTimestamper } from './frame-factory.ts';

describe('createTimestamper', () => {
  it('matches Date#toISOString across millisecond, second, day and year boundaries', () => {
    const timestamp = createTimestamper();
    const starts = [
      0,
      Date.UTC(2024, 1, 29, 23, 59, 59, 990),
      Date.UTC(2025, 11, 31, 23, 59, 59, 995),
      1_700_000_000_123,
    ];
    for (const start of starts) {
      for (let ms = start; ms < start + 25; ms++) expect(timestamp(ms)).toBe(new Date(ms).toISOString());
    }
    expect(timestamp(1_700_000_000_123.9)).toBe('2023-11-14T22:13:20.123Z');
  });
});

describe('createFrameFactory', () => {
  it('stamps valid agent.events.v1 frames with sortable unique ids from one clock read', () => {
    let clock = Date.UTC(2025, 0, 1);
    let reads = 0;
    const makeFrame = createFrameFactory({ now: () => (reads++, clock++) });
    const frames = Array.from({ length: 50 }, (_, i) => makeFrame({ type: 'warning', message: `w${i}` }, i + 1));
    expect(reads).toBe(50);
    for (const frame of frames) {
      expect(eventFrameSchema.parse(frame)).toEqual(frame);
      expect(isId(frame.id, 'evt')).toBe(true);
    }
    const ids = frames.map((frame) => frame.id);
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(50);
    expect(frames[1]?.ts).toBe('2025-01-01T00:00:00.001Z');
  });

  it('uses an injected id generator and applies the redactor last', () => {
    const makeFrame = createFrameFactory({
      now: () => 0,
      newId: (prefix) => `${prefix}_00000000000000000000000000`,
      redact: (frame) => ({ ...frame, message: 'hidden' }),
    });
    expect(makeFrame({ type: 'warning', message: 'secret' }, 7)).toEqual({
      version: 'agent.events.v1',
      id: 'evt_00000000000000000000000000',
      seq: 7,
      ts: '1970-01-01T00:00:00.000Z',
      type: 'warning',
      message: 'hidden',
    });
  });
});
