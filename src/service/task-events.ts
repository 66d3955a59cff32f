import { AgencyError } from '../core/errors.ts';
import type { EventFrame } from '../task/contracts/events.ts';
import { lastSeqOfType } from '../task/journal/read-journal.ts';
import type { JournalHub } from './journal-hub.ts';
import { recordOf, type ServiceCore } from './service-core.ts';

/** The task's journal frames after `after`, then new ones as they come, until its run ends or `signal` aborts. */
export async function taskEvents(
  core: ServiceCore,
  id: string,
  { after = 0, signal }: { after?: number; signal?: AbortSignal },
): Promise<AsyncIterable<EventFrame>> {
  const { queue } = core;
  const record = await recordOf(core, id);
  if (!Number.isInteger(after) || after < 0)
    throw new AgencyError('invalid_argument', 'after: must be a non-negative integer (a seq)', {
      details: { field: 'after' },
    });
  const lastFinish = await lastSeqOfType(record.paths.events, 'finish');
  // Asked after the journal's end was read: where the frames of the run live here begin. Its finish is the first
  // at or after that, whether or not it is on file yet, and even while the run still holds the task as it lets go.
  const since = queue.isQueued(id) ? undefined : queue.liveSince(id);
  const active = () => queue.isQueued(id) || queue.isLive(id);
  // A run in progress ends with a finish still to come; a finished one with the last finish on file.
  const endAt = since ?? (active() || record.owner?.alive ? lastFinish + 1 : lastFinish);
  // The stream ends once the run has let go of the task, so a client that saw it end can resume the task.
  const run = { resumeQueued: () => queue.isQueued(id), settled: () => queue.settled(id) };
  if (endAt > 0 && lastFinish >= endAt && after >= lastFinish) {
    await run.settled();
    return (async function* () {})();
  }
  return followUntilEnd(core.hub, record.paths.events, after, signal, endAt, run);
}

// Follows the journal from `after`. It ends after the `finish` frame at `endAt` or later (earlier finishes belong to
// runs since resumed) and once the run has let go of the task (the runner writes state.json after journaling its
// finish, and a client told the stream is over asks for the result or resumes next), unless a resume of the task is
// queued by then, in which case it waits for that run's finish.
async function* followUntilEnd(
  hub: JournalHub,
  file: string,
  after: number,
  signal: AbortSignal | undefined,
  endAt: number,
  run: { resumeQueued: () => boolean; settled: () => Promise<unknown> },
): AsyncGenerator<EventFrame> {
  const controller = new AbortController();
  const stop = () => controller.abort();
  signal?.addEventListener('abort', stop, { once: true });
  try {
    for await (const frame of hub.follow(file, after, controller.signal)) {
      yield frame;
      if (frame.type !== 'finish' || frame.seq < endAt) continue;
      if (!run.resumeQueued()) {
        await run.settled();
        return;
      }
      endAt = frame.seq + 1;
    }
  } finally {
    signal?.removeEventListener('abort', stop);
    controller.abort();
  }
}
