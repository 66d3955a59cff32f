import { useEffect, useRef, useState } from 'preact/hooks';
import { eventsUrl } from '../api/client.ts';
import { openEventStream, type StreamState } from '../api/event-stream.ts';
import type { EventFrame } from '../api/types.ts';
import { createSeqLog, type SeqLog } from '../lib/seq-log.ts';

// Frames replayed on open arrive by the hundred; the page renders them in batches instead of once per frame.
const BATCH_MS = 60;

/**
 * A task's journal frames, live: each seq once and in order across reconnects. Bump `generation` to follow the
 * task again after its stream ended (a resumed run); the frames already held are kept and the stream resumes after
 * them. `onFrames` hears each batch of new frames. `url` names another stream of frames (a fleet task's); by default
 * the server's own task's.
 */
export function useEventStream(
  taskId: string,
  {
    generation = 0,
    onFrames,
    url = eventsUrl,
  }: {
    generation?: number;
    onFrames?: (frames: EventFrame[]) => void;
    url?: (taskId: string, after: number) => string;
  } = {},
): { frames: readonly EventFrame[]; state: StreamState } {
  const [frames, setFrames] = useState<readonly EventFrame[]>([]);
  const [state, setState] = useState<StreamState>('connecting');
  const log = useRef<{ taskId: string; log: SeqLog } | undefined>(undefined);
  const listener = useRef(onFrames);
  listener.current = onFrames;
  const address = useRef(url);
  address.current = url;

  useEffect(() => {
    if (log.current?.taskId !== taskId) {
      log.current = { taskId, log: createSeqLog() };
      setFrames([]);
    }
    const held = log.current.log;
    let fresh: EventFrame[] = [];
    let timer: ReturnType<typeof setTimeout> | undefined;
    const flush = (): void => {
      timer = undefined;
      setFrames(held.frames());
      const batch = fresh;
      fresh = [];
      listener.current?.(batch);
    };
    const stream = openEventStream({
      url: (after) => address.current(taskId, after),
      lastSeq: held.lastSeq,
      onFrame: (frame) => {
        if (!held.add(frame)) return;
        fresh.push(frame);
        timer ??= setTimeout(flush, BATCH_MS);
      },
      onState: setState,
    });
    return () => {
      stream.close();
      if (timer !== undefined) clearTimeout(timer);
    };
  }, [taskId, generation]);

  return { frames, state };
}
