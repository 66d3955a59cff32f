import type { EventFrame } from '../api/types.ts';

/**
 * The frames of one run's journal as the page has seen them: kept in `seq` order, each seq once. A stream that
 * reconnects may replay frames the page already holds (a `Last-Event-ID` the server did not get, a reopen with
 * `?after=` racing a late frame); they are dropped here.
 */
export type SeqLog = {
  /** Adds a frame; false when a frame with its seq is already held. */
  add(frame: EventFrame): boolean;
  /** The highest seq held, 0 when empty: what `?after=` resumes from. */
  lastSeq(): number;
  /** The frames in seq order. The array is replaced (not mutated) by every add that keeps a frame. */
  frames(): readonly EventFrame[];
};

/** An empty {@link SeqLog}. */
export function createSeqLog(): SeqLog {
  const seen = new Set<number>();
  let list: EventFrame[] = [];
  return {
    add(frame) {
      if (seen.has(frame.seq)) return false;
      seen.add(frame.seq);
      const last = list[list.length - 1];
      if (last === undefined || last.seq < frame.seq) list = [...list, frame];
      else list = insertSorted(list, frame);
      return true;
    },
    lastSeq: () => list[list.length - 1]?.seq ?? 0,
    frames: () => list,
  };
}

function insertSorted(list: readonly EventFrame[], frame: EventFrame): EventFrame[] {
  const at = list.findIndex((held) => held.seq > frame.seq);
  return [...list.slice(0, at), frame, ...list.slice(at)];
}
