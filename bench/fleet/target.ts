// The worker the benchmark measures, behind one seam.
import { startFakeWorkerProcess } from '../../test/support/fake-worker-process.ts';

/** A running worker: where it listens, and how to stop it. */
export type BenchWorker = { url: string; stop(): Promise<void> };

/** Starts a worker on `port` whose executor runs `command` for every task, in a process of its own. */
export type StartWorker = (options: {
  port: number;
  name: string;
  command: [string, ...string[]];
}) => Promise<BenchWorker>;

/** The fake worker of the tests (test/support/fake-worker.ts), which runs each task's command as a real process. */
export const startFakeWorker: StartWorker = async ({ port, name, command }) => {
  const worker = await startFakeWorkerProcess(port, ['--name', name, '--command', JSON.stringify(command)]);
  return { url: worker.url, stop: () => worker.stop() };
};

// The worker measured. `agency worker` is not merged yet, so this is the fake; once it is, this line points at a
// function that starts `agency worker` with an executor running `command`, and nothing else changes.
export const startWorker: StartWorker = startFakeWorker;

/** Which worker `startWorker` is, for the report. */
export const WORKER_UNDER_TEST = 'the fake worker of the tests (test/support/fake-worker.ts)';
