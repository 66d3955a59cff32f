import { type FSWatcher, watch } from 'node:fs';
import { abortedError } from '../../../core/clock.ts';

/** Why a check runs: the first look, a watcher event, or a poll tick. */
export type CheckReason = 'start' | 'watch' | 'poll';

/** Options for {@link waitForChange}. */
export type WaitForChangeOptions = {
  /** The directory to watch. */
  dir: string;
  /** The file in `dir` whose changes trigger a check. */
  fileName: string;
  pollMs: number;
  signal?: AbortSignal | undefined;
};

/**
 * Runs `check` once at the start, whenever `fs.watch` reports a change to the file, and every `pollMs` (watchers
 * miss events on network and container filesystems, so polling is the floor). Checks never overlap. Resolves with
 * the first result `check` returns, rejects with its first error, or with AgencyError `aborted` on abort.
 */
export function waitForChange<T>(
  check: (reason: CheckReason) => Promise<T | undefined>,
  { dir, fileName, pollMs, signal }: WaitForChangeOptions,
): Promise<T> {
  if (signal?.aborted) return Promise.reject(abortedError(signal));
  return new Promise<T>((resolve, reject) => {
    let settled = false;
    let running = false;
    let queued: CheckReason | undefined;

    const finish = (settle: () => void) => {
      if (settled) return;
      settled = true;
      clearInterval(timer);
      watcher?.close();
      signal?.removeEventListener('abort', onAbort);
      settle();
    };
    const onAbort = () => finish(() => reject(abortedError(signal)));

    const run = (reason: CheckReason) => {
      if (settled) return;
      if (running) {
        // A poll tick outranks a watch event: the check uses ticks to tell a settled file from one mid-write.
        queued = queued === 'poll' ? 'poll' : reason;
        return;
      }
      running = true;
      check(reason).then(
        (result) => {
          running = false;
          if (result !== undefined) return finish(() => resolve(result));
          const next = queued;
          queued = undefined;
          if (next !== undefined) run(next);
        },
        (error: unknown) => finish(() => reject(error)),
      );
    };

    const timer = setInterval(() => run('poll'), pollMs);
    signal?.addEventListener('abort', onAbort, { once: true });
    const watcher = startWatcher(dir, (name) => {
      if (name === null || name === fileName) run('watch');
    });
    run('start');
  });
}

function startWatcher(dir: string, onChange: (name: string | null) => void): FSWatcher | undefined {
  try {
    const watcher = watch(dir, { persistent: false }, (_event, name) => onChange(name));
    // A broken watcher is not fatal: polling carries on.
    watcher.on('error', () => watcher.close());
    return watcher;
  } catch {
    return undefined;
  }
}
