// Each test of the fleet's CLI gets its own data root and a free block of 8 ports, scanned through
// AGENCY_FLEET_PORTS. On it run real `agency worker` processes (their configs in that data root, the scripted
// executor through the worker's test hook), and fake components where a test needs one that misbehaves or is not a
// worker; all of them are stopped after the test.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach } from 'vitest';
import { cli } from './cli.ts';
import { type FakeComponentProcess, startFakeComponentProcess } from './fake-component-process.ts';
import { freePortBlock } from './free-ports.ts';
import { startWorkerProcess, type WorkerProcess } from './worker-process.ts';

/** A real worker of the fixture: its process, its port and its name. */
export type FleetWorker = WorkerProcess & { port: number; name: string };

/** Registers the set-up and clean-up, and returns what a test uses. */
export function useFleetFixture() {
  const state = {
    root: '',
    block: { from: 0, to: 0 },
    env: {} as Record<string, string>,
  };
  const workers: FleetWorker[] = [];
  const fakes: FakeComponentProcess[] = [];
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
    await Promise.all([
      ...workers.splice(0).map(async (worker) => {
        if (worker.child.exitCode === null && worker.child.signalCode === null) await worker.kill('SIGKILL');
      }),
      ...fakes.splice(0).map((fake) => fake.stop()),
    ]);
    await rm(state.root, { recursive: true, force: true });
  });
  return {
    state,
    /**
     * `agency worker <name>` on the block's port `offset`, its config in the fixture's data root; resolves once it is
     * ready (unless `waitReady: false`). `env` reaches the worker (and its scripted executor's check).
     */
    async worker(
      offset: number,
      name: string,
      { env = {}, waitReady = true }: { env?: Record<string, string>; waitReady?: boolean } = {},
    ): Promise<FleetWorker> {
      const port = state.block.from + offset;
      await mkdir(join(state.root, 'agents', name), { recursive: true });
      await writeFile(join(state.root, 'agents', name, 'config.yaml'), `port: ${port}\nexecutor: claude\n`);
      const started = await startWorkerProcess(name, state.root, { env, waitReady, port });
      const worker = Object.assign(started, { port, name });
      workers.push(worker);
      return worker;
    },
    /** A fake component (`fake-component-main.ts …args`) on the block's port `offset`. */
    async fake(offset: number, ...args: string[]): Promise<FakeComponentProcess> {
      const started = await startFakeComponentProcess(state.block.from + offset, args);
      fakes.push(started);
      return started;
    },
    /** Resolves once the component at `url` says it is in `state`. */
    async until(url: string, wanted: string): Promise<void> {
      for (;;) {
        const status = (await (await fetch(`${url}/status`)).json()) as { state: string };
        if (status.state === wanted) return;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
    /** `agency …args` with the fixture's environment. */
    agency: (...args: string[]) => cli(args, state.env),
  };
}
