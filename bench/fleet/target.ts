// The worker the benchmark measures: the real `agency worker`, in a process of its own with a data root of its own,
// its executor running `command` for every task (bench/fleet/command-executor.ts, through the worker's test hook).
import { rm } from 'node:fs/promises';
import { startWorkerProcess, workerRoot } from '../../test/support/worker-process.ts';
import { COMMAND_VARIABLE } from './command-executor.ts';

/** A running worker: where it listens, and how to stop it. */
export type BenchWorker = { url: string; stop(): Promise<void> };

/** Starts a worker on `port` whose executor runs `command` for every task, in a process of its own. */
export type StartWorker = (options: {
  port: number;
  name: string;
  command: [string, ...string[]];
}) => Promise<BenchWorker>;

const COMMAND_EXECUTOR = new URL('command-executor.ts', import.meta.url).pathname;

/** `agency worker <name> --port <port>`; stopping it sends SIGTERM, waits for its exit and removes its data root. */
export const startWorker: StartWorker = async ({ port, name, command }) => {
  const root = await workerRoot(name, `port: ${port}\nexecutor: claude\n`);
  const worker = await startWorkerProcess(name, root, {
    port,
    env: { AGENCY_WORKER_TEST_EXECUTOR: COMMAND_EXECUTOR, [COMMAND_VARIABLE]: JSON.stringify(command) },
  });
  return {
    url: worker.url,
    async stop() {
      await worker.kill('SIGTERM');
      await rm(root, { recursive: true, force: true });
    },
  };
};

/** Which worker `startWorker` is, for the report. */
export const WORKER_UNDER_TEST =
  '`agency worker` (its executor spawning the command: bench/fleet/command-executor.ts, no sandbox)';
