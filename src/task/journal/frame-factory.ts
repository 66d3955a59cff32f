import { createIdGenerator, type IdGenerator } from '../../core/ids.ts';
import { EVENTS_VERSION, type EventFrame, type EventInput } from '../contracts/events.ts';

/** Rewrites a frame before it is stored, e.g. to scrub secrets. It must keep `version`, `id`, `seq` and `ts`. */
export type FrameRedactor = (frame: EventFrame) => EventFrame;

/** What every journal needs to stamp frames. */
export type FrameFactoryOptions = {
  /** Milliseconds since the epoch, for `ts`. @default Date.now */
  now?: () => number;
  /** Makes the `evt_…` ids. @default createIdGenerator({ now }) */
  newId?: IdGenerator;
  /** Applied to every frame before it is stored or written. */
  redact?: FrameRedactor;
};

/** Stamps an event with its version, id, seq and timestamp, then redacts it. */
export type FrameFactory = (event: EventInput, seq: number) => EventFrame;

/** Creates the {@link FrameFactory} shared by the file and memory journals. */
export function createFrameFactory({ now = Date.now, newId, redact }: FrameFactoryOptions = {}): FrameFactory {
  // One clock read per frame, shared by the id and the timestamp: reading the clock is not free on every machine.
  let time = 0;
  const makeId = newId ?? createIdGenerator({ now: () => time });
  const timestamp = createTimestamper();
  return (event, seq) => {
    time = now();
    const frame: EventFrame = { version: EVENTS_VERSION, id: makeId('evt'), seq, ts: timestamp(time), ...event };
    return redact ? redact(frame) : frame;
  };
}

/**
 * `Date#toISOString` for a stream of nearby times. The formatted second is cached, so most calls only append the
 * milliseconds: formatting a date costs more than the rest of an append.
 */
export function createTimestamper(): (ms: number) => string {
  let cachedSecond = Number.NaN;
  let prefix = '';
  return (time) => {
    const ms = Math.floor(time);
    const second = Math.floor(ms / 1000);
    if (second !== cachedSecond) {
      cachedSecond = second;
      prefix = new Date(second * 1000).toISOString().slice(0, -4);
    }
    const milli = ms - second * 1000;
    return `${prefix}${milli < 10 ? '00' : milli < 100 ? '0' : ''}${milli}Z`;
  };
}
