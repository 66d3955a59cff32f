import { type FSWatcher, watch } from 'node:fs';
import { abortedError } from '../../../core/clock.ts';

/** Why a check runs: the first look, a watcher event, a poll tick, or a re-check the check itself asked for. */
export type CheckReason = 'start' | 'watch' | 'poll' | 'recheck';

/** Asks for one more check after `ms`, whatever the watcher and the poll do (a later request replaces it). */
export type Recheck = (ms: number) => void;

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
  check: (reason: CheckReason, recheck: Recheck) => Promise<T | undefined>,
  { dir, fileName, pollMs, signal }: WaitForChangeOptions,
): Promise<T> {
  if (signal?.aborted) return Promise.reject(abortedError(signal));
  return new Promise<T>((resolve, reject) => {
    let settled = false;
    let running = false;
    let queued: CheckReason | undefined;
    let recheckTimer: NodeJS.Timeout | undefined;

    const finish = (settle: () => void) => {
      if (settled) return;
      settled = true;
      clearInterval(timer);
      clearTimeout(recheckTimer);
      watcher?.close();
      signal?.removeEventListener('abort', onAbort);
      settle();
    };
    const onAbort = () => finish(() => reject(abortedError(signal)));

    const run = (reason: CheckReason) => {
      if (settled) return;
      if (running) {
        queued = reason;
        return;
      }
      running = true;
      check(reason, recheck).then(
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

    const recheck: Recheck = (ms) => {
      clearTimeout(recheckTimer);
      if (!settled) recheckTimer = setTimeout(() => run('recheck'), ms);
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
