import { describe, expect, it } from 'vitest';
import type { EventFrame } from '../api/types.ts';
import { createSeqLog } from './seq-log.ts';

function frame(seq: number): EventFrame {
  return {
    version: 'agent.events.v1',
    id: `evt_${String(seq).padStart(26, '0')}`,
    seq,
    ts: '2026-11-21T12:00:00.000Z',
    type: 'warning',
  };
}

describe('createSeqLog', () => {
  it('keeps each seq once across a replayed reconnect', () => {
    const log = createSeqLog();
    for (const seq of [1, 2, 3]) expect(log.add(frame(seq))).toBe(true);
    // The stream dropped after 3 and the server replayed from 2.
    expect(log.add(frame(2))).toBe(false);
    expect(log.add(frame(3))).toBe(false);
    expect(log.add(frame(4))).toBe(true);
    expect(log.frames().map((held) => held.seq)).toEqual([1, 2, 3, 4]);
    expect(log.lastSeq()).toBe(4);
  });

  it('puts a late frame in its place', () => {
    const log = createSeqLog();
    log.add(frame(1));
    log.add(frame(3));
    log.add(frame(2));
    expect(log.frames().map((held) => held.seq)).toEqual([1, 2, 3]);
  });

  it('replaces the list on a kept add and keeps it on a duplicate', () => {
    const log = createSeqLog();
    expect(log.lastSeq()).toBe(0);
    log.add(frame(1));
    const before = log.frames();
    log.add(frame(1));
    expect(log.frames()).toBe(before);
    log.add(frame(2));
    expect(log.frames()).not.toBe(before);
    expect(before).toHaveLength(1);
  });
});
