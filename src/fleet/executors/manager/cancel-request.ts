// How the manager's executor asks the sandboxed child running a turn to stop: a file in the turn's `progress/`, which
// the child polls. A signal would not do: the sandbox's supervisor dies at SIGTERM and takes the child with it before
// the run could journal its `finish`.
import { access, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** How often the child looks for the request. */
const POLL_MS = 100;

/** The request's file in the turn's task root. */
export const cancelRequestFile = (root: string): string => join(root, 'progress', 'cancel-requested');

/** Asks the child running the turn in `root` to stop its run as cancelled. */
export async function requestCancel(root: string): Promise<void> {
  await writeFile(cancelRequestFile(root), `${new Date().toISOString()}\n`);
}

/**
 * Aborts `controller` once the turn in `root` is asked to stop (polling, as watchers miss events on some
 * filesystems). `close()` ends the watch.
 */
export function watchCancelRequest(root: string, controller: AbortController): { close(): void } {
  const file = cancelRequestFile(root);
  const timer = setInterval(() => {
    access(file).then(
      () => controller.abort(),
      () => undefined,
    );
  }, POLL_MS);
  timer.unref();
  return { close: () => clearInterval(timer) };
}
