import { agencyRoot, agencyRootAt } from '../../config/agency-root.ts';
import { directorConfigPath } from '../../config/director-config.ts';
import { errorMessage } from '../../core/errors.ts';
import { startDirector } from '../../fleet/directors/host/start-director.ts';
import { EXIT } from '../exit-codes.ts';
import type { Output } from '../render.ts';
import { packageVersion } from './worker.ts';

/** Options of `agency director`. */
export type DirectorCommandOptions = { root?: string; port?: number };

/**
 * `agency director <name>`: runs the director whose config is `directors/<name>/config.yaml` (a scheduler…) until
 * `POST /shutdown`, SIGINT or SIGTERM. Prints its URL once the port is bound. Exit 0 after a shutdown, 1 when its
 * work failed, 2 for a bad config or state file.
 */
export async function directorCommand(
  name: string,
  options: DirectorCommandOptions,
  out: Output,
  err: Output,
): Promise<number> {
  const root = options.root ? agencyRootAt(options.root) : agencyRoot();
  const running = await startDirector({
    file: directorConfigPath(root, name),
    root,
    version: packageVersion(),
    ...(options.port !== undefined ? { port: options.port } : {}),
  });
  out.write(`agency director ${running.name}: ${running.url}  (${running.type}; data root ${root.root})\n`);
  if (running.newToken) out.write(`Token (shown once; kept in ${running.tokenFile}): ${running.newToken}\n`);
  else if (running.tokenFile) out.write(`Token: in ${running.tokenFile}\n`);
  const signalled = new Promise<NodeJS.Signals>((resolve) => {
    process.once('SIGINT', () => resolve('SIGINT'));
    process.once('SIGTERM', () => resolve('SIGTERM'));
  });
  const stopped = await Promise.race([running.closed.then(() => undefined), signalled]);
  if (stopped) out.write(`${stopped}: stopping; work in flight is left for the next start\n`);
  const failed = stopped ? await running.stop(0) : await running.closed;
  if (failed) {
    err.write(`agency director: ${errorMessage(failed)}\n`);
    return EXIT.failed;
  }
  out.write('stopped\n');
  return EXIT.ok;
}
