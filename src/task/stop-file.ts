import type { Session } from './session.ts';

/** How often a live run looks for `progress/STOP`. */
export const STOP_POLL_MS = 200;

/**
 * Watches for `progress/STOP` (written by `agency stop` or a person) while a run is live, and stops the run with
 * `stopped` as soon as it appears, whatever the run is doing: waiting for an approval, a model or a tool. A poll,
 * not a file watcher, because watchers miss events on network and container filesystems.
 */
export function watchStopFile(session: Session, pollMs = STOP_POLL_MS): { close(): void } {
  let checking = false;
  const timer = setInterval(() => {
    if (checking || session.stopReason) return;
    checking = true;
    session.files
      .exists(session.paths.stop)
      .then((present) => {
        if (present) session.requestStop('stopped');
      })
      .catch(() => undefined)
      .finally(() => {
        checking = false;
      });
  }, pollMs);
  timer.unref();
  return { close: () => clearInterval(timer) };
}
