import { spawn } from 'node:child_process';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import type { Component } from '../../src/fleet/discovery/component.ts';
import { createDiscovery } from '../../src/fleet/discovery/discovery.ts';
import { followTask, SETTLED_STATES } from '../../src/fleet/directors/cli/follow-task.ts';
import { createWorkerClient, type WorkerClient } from '../../src/fleet/worker-client.ts';
import { freePortBlock } from '../../test/support/free-ports.ts';
import { median, quantile, round } from '../journal/raw-floor.ts';
import type { StartWorker } from './target.ts';

/** p50 and p99 of some ms figures, rounded to µs. */
export function spread(values: number[]): { p50Ms: number; p99Ms: number; runs: number } {
  return { p50Ms: round(quantile(values, 0.5), 3), p99Ms: round(quantile(values, 0.99), 3), runs: values.length };
}

/** The floor: spawning the executor's command directly, to its exit. */
export function spawnOnce(command: readonly [string, ...string[]]): Promise<number> {
  const started = performance.now();
  const [file, ...args] = command;
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.resume();
    child.stderr.resume();
    child.once('error', reject);
    child.once('close', () => resolve(performance.now() - started));
  });
}

/**
 * One task through the worker: `POST /task`, then `GET /task/:id` back to back until its turn is over, so the figure
 * is the worker's cost and not a poll interval. The session is ended afterwards, untimed.
 */
export async function dispatchOnce(client: WorkerClient, prompt: string): Promise<number> {
  const started = performance.now();
  const { task_id: taskId } = await client.submit({ prompt });
  let task = await client.task(taskId);
  while (!SETTLED_STATES.includes(task.state)) task = await client.task(taskId);
  const ms = performance.now() - started;
  if (task.state !== 'idle' && task.state !== 'completed')
    throw new Error(`the bench task ${task.state}: ${task.error?.message}`);
  if (task.state === 'idle') await client.end(taskId);
  return ms;
}

/** The floor and the worker, taking turns so a busy moment of the machine falls on both alike. */
export async function measureDispatch({
  startWorker,
  command,
  runs,
  warmups,
  directorRuns,
}: {
  startWorker: StartWorker;
  command: [string, ...string[]];
  runs: number;
  warmups: number;
  directorRuns: number;
}) {
  const block = await freePortBlock(1);
  const worker = await startWorker({ port: block.from, name: 'bench', command });
  const client = createWorkerClient(worker.url);
  const floor: number[] = [];
  const through: number[] = [];
  try {
    for (let run = 0; run < warmups + runs; run++) {
      const direct = await spawnOnce(command);
      const dispatched = await dispatchOnce(client, `bench ${run}`);
      if (run >= warmups) {
        floor.push(direct);
        through.push(dispatched);
      }
    }
    // What `agency task` sees of the same task: its follower's first poll comes 100 ms after the submit.
    const director: number[] = [];
    for (let run = 0; run < directorRuns; run++) {
      const started = performance.now();
      const { task_id: taskId } = await client.submit({ prompt: `director ${run}` });
      await followTask({ client, taskId });
      director.push(performance.now() - started);
      await client.end(taskId);
    }
    return { floor: spread(floor), worker: spread(through), director: spread(director) };
  } finally {
    await worker.stop();
  }
}

/** How long one refresh of a discovery takes: a scan of `size` ports holding two workers, and their status. */
export async function measureOneShotScan({
  startWorker,
  command,
  size,
  runs,
}: {
  startWorker: StartWorker;
  command: [string, ...string[]];
  size: number;
  runs: number;
}) {
  const block = await freePortBlock(size);
  const workers = await Promise.all(
    [0, 1].map((index) => startWorker({ port: block.from + index * 7, name: `scan${index}`, command })),
  );
  const times: number[] = [];
  try {
    for (let run = 0; run < runs + 2; run++) {
      const started = performance.now();
      const found = await createDiscovery({ ports: block }).refresh();
      if (found.length !== 2) throw new Error(`the scan found ${found.length} components, not 2`);
      if (run >= 2) times.push(performance.now() - started);
    }
  } finally {
    await Promise.all(workers.map((worker) => worker.stop()));
  }
  return { ports: size, ...spread(times), medianMs: round(median(times), 2) };
}

/**
 * How long a running discovery (default intervals: a scan every 5 s) takes to report a worker started at a random
 * moment: from the worker's first answer to the discovery's change.
 */
export async function measureTimeToSee({
  startWorker,
  command,
  samples,
}: {
  startWorker: StartWorker;
  command: [string, ...string[]];
  samples: number;
}) {
  const times: number[] = [];
  for (let sample = 0; sample < samples; sample++) {
    const block = await freePortBlock(20);
    let seenAt = 0;
    const discovery = createDiscovery({
      ports: block,
      onChange: (components: Component[]) => {
        if (seenAt === 0 && components.some((component) => component.status !== undefined)) seenAt = performance.now();
      },
    });
    discovery.start();
    await new Promise((resolve) => setTimeout(resolve, Math.random() * 5000));
    const worker = await startWorker({ port: block.from + 11, name: 'late', command });
    const listening = performance.now();
    while (seenAt === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    times.push(seenAt - listening);
    discovery.stop();
    await discovery.settled();
    await worker.stop();
  }
  return {
    samples,
    medianMs: round(median(times), 0),
    maxMs: round(Math.max(...times), 0),
    times: times.map((ms) => round(ms, 0)),
  };
}

/**
 * The cost of keeping 50 workers current: they run in another process, half of them working; a discovery in this
 * process polls them for `seconds`. Reports polls per second (against the adaptive pace's expectation), this
 * process's CPU time per second, and its event-loop delay.
 */
export async function measurePolling({ count, working, seconds }: { count: number; working: number; seconds: number }) {
  const child = spawn(
    process.execPath,
    [fileURLToPath(new URL('many-workers.ts', import.meta.url)), String(count), String(working)],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  try {
    const urls = await new Promise<string[]>((resolve, reject) => {
      let text = '';
      child.stdout.on('data', (chunk: Buffer) => {
        text += chunk.toString();
        if (text.includes('\n')) resolve(JSON.parse(text) as string[]);
      });
      child.once('exit', () => reject(new Error('the workers process ended')));
    });
    let polls = 0;
    const discovery = createDiscovery({
      ports: null,
      urls,
      clientFor: (url) => {
        const client = createWorkerClient(url, { timeoutMs: 2000 });
        return { ...client, status: (options) => (polls++, client.status(options)) };
      },
    });
    discovery.start();
    await new Promise((resolve) => setTimeout(resolve, 6000));
    const states = discovery.components().map((component) => component.status?.state);
    if (states.filter((state) => state === 'working').length !== working)
      throw new Error(`expected ${working} working: ${states.join(',')}`);
    polls = 0;
    const delay = monitorEventLoopDelay({ resolution: 10 });
    delay.enable();
    const cpuBefore = process.cpuUsage();
    const started = performance.now();
    await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
    const wallSeconds = (performance.now() - started) / 1000;
    const cpu = process.cpuUsage(cpuBefore);
    delay.disable();
    discovery.stop();
    await discovery.settled();
    const expected = working / 1 + (count - working) / 5;
    return {
      workers: count,
      working,
      seconds,
      pollsPerSecond: round(polls / wallSeconds, 1),
      expectedPollsPerSecond: expected,
      cpuMsPerSecond: round((cpu.user + cpu.system) / 1000 / wallSeconds, 2),
      cpuPercentOfCore: round(((cpu.user + cpu.system) / 1000 / wallSeconds / 1000) * 100, 2),
      eventLoopP99Ms: round(delay.percentile(99) / 1e6, 2),
      unhealthy: discovery.components().filter((component) => component.health !== 'green').length,
    };
  } finally {
    child.kill('SIGTERM');
  }
}
