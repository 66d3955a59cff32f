// Each test of the fleet's CLI gets its own data root and a free block of 8 ports, scanned through
// AGENCY_FLEET_PORTS; fake workers started on it are stopped after the test.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach } from 'vitest';
import { cli } from './cli.ts';
import { type FakeWorkerProcess, freePortBlock, startFakeWorkerProcess } from './fake-worker-process.ts';

/** Registers the set-up and clean-up, and returns what a test uses. */
export function useFleetFixture() {
  const state = {
    root: '',
    block: { from: 0, to: 0 },
    env: {} as Record<string, string>,
  };
  const workers: FakeWorkerProcess[] = [];
  beforeEach(async () => {
    state.root = await mkdtemp(join(tmpdir(), 'agency-fleet-e2e-'));
    state.block = await freePortBlock(8);
    state.env = {
      AGENCY_ROOT: state.root,
      AGENCY_FLEET_PORTS: `${state.block.from}-${state.block.to}`,
      AGENCY_FLEET_URLS: '',
      NO_COLOR: '1',
    };
  });
  afterEach(async () => {
    await Promise.all(workers.splice(0).map((worker) => worker.stop()));
    await rm(state.root, { recursive: true, force: true });
  });
  return {
    state,
    /** A fake worker on the block's port `offset`. */
    async worker(offset: number, ...args: string[]): Promise<FakeWorkerProcess> {
      const started = await startFakeWorkerProcess(state.block.from + offset, args);
      workers.push(started);
      return started;
    },
    /** Resolves once the worker at `url` says it is in `state`. */
    async until(url: string, state: string): Promise<void> {
      for (;;) {
        const status = (await (await fetch(`${url}/status`)).json()) as { state: string };
        if (status.state === state) return;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
    /** `agency …args` with the fixture's environment. */
    agency: (...args: string[]) => cli(args, state.env),
  };
}
