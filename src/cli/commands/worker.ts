import { readFileSync } from 'node:fs';
import { agencyRoot, agencyRootAt } from '../../config/agency-root.ts';
import { errorMessage } from '../../core/errors.ts';
import { hostedConfigPath, loadHostedConfig } from '../../fleet/directors/manager/hosted-config.ts';
import { startWorker } from '../../fleet/worker/start-worker.ts';
import { EXIT } from '../exit-codes.ts';
import { operatorGovernance } from '../run-governance.ts';
import type { Output } from '../render.ts';

/** Options of `agency worker`. */
export type WorkerCommandOptions = { config?: string; root?: string; port?: number };

/**
 * The environment variable that makes `agency worker` load its executor from a module of the caller's choosing
 * instead of the config's: a test hook, for tests that run a real worker process with a scripted executor.
 */
export const TEST_EXECUTOR_VARIABLE = 'AGENCY_WORKER_TEST_EXECUTOR';

/**
 * `agency worker <name>` (or `--config <file>`): the agent daemon of seed 004; given the manager director's config
 * (`directors/<name>/config.yaml`, `type: manager`), the manager, hosted by the same daemon (docs/directors.md). Prints its URL at once, then `ready`
 * once its executor passed its check; runs until `POST /shutdown`, SIGINT or SIGTERM (which cancel a running task).
 * Exit 0 after a shutdown, 1 when the executor failed its check, 2 for a bad config or credential.
 */
export async function workerCommand(
  name: string | undefined,
  options: WorkerCommandOptions,
  out: Output,
  err: Output,
): Promise<number> {
  if ((name === undefined) === (options.config === undefined)) {
    err.write('agency worker: give a worker name (agents/<name>/config.yaml under the data root) or --config <file>\n');
    return EXIT.usage;
  }
  const root = options.root ? agencyRootAt(options.root) : agencyRoot();
  const config = await loadHostedConfig(options.config ?? hostedConfigPath(root, name!));
  const testExecutor = process.env[TEST_EXECUTOR_VARIABLE];
  const running = await startWorker({
    config,
    root,
    version: packageVersion(),
    governance: operatorGovernance,
    ...(options.port !== undefined ? { port: options.port } : {}),
    ...(testExecutor ? { executorModule: testExecutor } : {}),
  });
  out.write(
    `agency worker ${config.name}: ${running.url}  (starting; executor ${config.executor}; data root ${root.root})\n`,
  );
  if (running.fleetDatabase) out.write(`queue mode: fleet database ${running.fleetDatabase}\n`);
  if (running.newToken) out.write(`Token (shown once; kept in ${running.tokenFile}): ${running.newToken}\n`);
  else if (running.tokenFile) out.write(`Token: in ${running.tokenFile}\n`);
  // Installed before the executor's check, so a signal during start-up also stops the worker cleanly.
  const signalled = new Promise<NodeJS.Signals>((resolve) => {
    process.once('SIGINT', () => resolve('SIGINT'));
    process.once('SIGTERM', () => resolve('SIGTERM'));
  });
  const started = await Promise.race([
    running.ready.then(
      ({ executorVersion }) => {
        out.write(`ready: executor ${config.executor} ${executorVersion}; log ${config.instanceDir}/agent.log\n`);
        return undefined;
      },
      (error: unknown) => error as Error,
    ),
    signalled,
  ]);
  if (started instanceof Error) {
    err.write(`agency worker: ${errorMessage(started)}\n`);
    await running.stop();
    return EXIT.failed;
  }
  const stopped = started ?? (await Promise.race([running.closed.then(() => undefined), signalled]));
  if (stopped) {
    out.write(`${stopped}: stopping; a running task is cancelled\n`);
    await running.stop();
  }
  out.write('stopped\n');
  return EXIT.ok;
}

/** agency's version, from its package.json: what a worker's and a director's `/status` report. */
export function packageVersion(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as {
    version: string;
  };
  return pkg.version;
}
