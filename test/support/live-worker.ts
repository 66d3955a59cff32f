// The real worker (`startWorker`, what `agency worker` runs) in this process, on a free port of 127.0.0.1, with the
// scripted executor: for tests of the worker's client, the directors and discovery against real HTTP.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { agencyRootAt } from '../../src/config/agency-root.ts';
import { loadWorkerConfig } from '../../src/config/worker-config.ts';
import { type RunningWorker, startWorker } from '../../src/fleet/worker/start-worker.ts';
import { SCRIPTED_EXECUTOR } from './worker-process.ts';

/** A worker started by {@link startLiveWorker}. */
export type LiveWorker = RunningWorker & {
  name: string;
  /** Its data root, removed by `close`. */
  root: string;
  /** Shuts it down (a running task is cancelled) and removes its data root. */
  close(): Promise<void>;
};

/**
 * Starts a worker named `name` (`agents/<name>/config.yaml` in a fresh data root, plus `config` lines) on port 0,
 * whose executor is `test/support/scripted-executor.ts`; resolves once it is ready, unless `ready: false`.
 */
export async function startLiveWorker({
  name = 'w',
  config = '',
  env = {},
  ready = true,
}: { name?: string; config?: string; env?: Record<string, string>; ready?: boolean } = {}): Promise<LiveWorker> {
  const root = await mkdtemp(join(tmpdir(), 'agency-live-worker-'));
  await mkdir(join(root, 'agents', name), { recursive: true });
  const file = join(root, 'agents', name, 'config.yaml');
  await writeFile(file, `port: 9000\nexecutor: claude\n${config}`);
  const running = await startWorker({
    config: await loadWorkerConfig(file),
    root: agencyRootAt(root),
    version: '0.0.0-test',
    port: 0,
    executorModule: SCRIPTED_EXECUTOR,
    env: { ...process.env, ...env },
    validateResponses: true,
    startedAt: Date.now(),
    lingerMs: 200,
  });
  if (ready) await running.ready;
  return {
    ...running,
    name,
    root,
    async close() {
      await running.stop();
      await rm(root, { recursive: true, force: true });
    },
  };
}
