import { errorMessage } from '../core/errors.ts';
import type { EventFrame } from '../task/contracts/events.ts';
import type { DoTaskResult } from '../task/result.ts';
import type { Runner } from '../task/runner.ts';
import type { Budgets, TaskSpec } from '../task/task-spec.ts';
import type { ServiceLogger } from './service-logger.ts';

/** A run waiting for a slot: a start (with its spec) or a resume (with budgets to raise). */
export type QueuedRun =
  | { kind: 'start'; id: string; root: string; spec: TaskSpec }
  | { kind: 'resume'; id: string; root: string; budgets?: Budgets; by: string };

/**
 * A run in progress in this process; `stopAsked` holds a stop asked for before the run was open, `firstSeq` the seq
 * of the first frame it journaled (where its frames begin).
 */
type LiveRun = {
  runner?: Runner;
  retrying: boolean;
  firstSeq?: number;
  stopAsked?: 'stopped' | 'cancelled';
  done: Promise<DoTaskResult | undefined>;
};

/** Options for {@link createRunQueue}. */
export type RunQueueOptions = {
  /** The runner for a task root (the operator's tools, policy and prices, narrowed by the task). */
  runnerFor(root: string): Promise<Runner>;
  /** How many runs go at once; the rest wait in order. */
  maxConcurrent: number;
  /** Told of every frame of every run, after the journal has it. */
  onFrame?(frame: EventFrame, taskId: string): void;
  /** Told when a queued run could not start (a bad spec, a lock held elsewhere …). */
  onStartFailed(run: QueuedRun, error: unknown): Promise<void>;
  logger: ServiceLogger;
};

/** The runs of a service: at most `maxConcurrent` at once, the rest queued in order. */
export type RunQueue = {
  enqueue(run: QueuedRun): void;
  /** Takes a queued run out of the queue; false when it was not queued. */
  dequeue(id: string): boolean;
  isQueued(id: string): boolean;
  isLive(id: string): boolean;
  isRetrying(id: string): boolean;
  /** The seq of the first frame the task's live run journaled; undefined before its first, or when not live. */
  liveSince(id: string): number | undefined;
  /** Asks a live run to stop; false when it is not live here. */
  stop(id: string, reason: 'stopped' | 'cancelled'): boolean;
  /** Resolves when the task's current or queued run ends (undefined when it ended without a result). */
  settled(id: string): Promise<DoTaskResult | undefined>;
  /** The ids of the runs live now. */
  liveIds(): string[];
  /** Stops every live run and waits for them to end. */
  drain(reason: 'stopped'): Promise<void>;
};

/** The queue's state: the runs waiting in order, the runs live now, and who waits for a task's run to end. */
type QueueState = {
  options: RunQueueOptions;
  waiting: QueuedRun[];
  live: Map<string, LiveRun>;
  waiters: Map<string, Array<(result: DoTaskResult | undefined) => void>>;
};

/**
 * Creates the run queue. A run is released when it ends, whatever the ending, and the next queued one starts; a
 * run that could not start is reported through `onStartFailed` and never blocks the queue.
 */
export function createRunQueue(options: RunQueueOptions): RunQueue {
  const state: QueueState = { options, waiting: [], live: new Map(), waiters: new Map() };
  const { waiting, live, waiters } = state;
  return {
    enqueue(run) {
      waiting.push(run);
      pump(state);
    },
    dequeue(id) {
      const index = waiting.findIndex((run) => run.id === id);
      if (index < 0) return false;
      waiting.splice(index, 1);
      settle(state, id, undefined);
      return true;
    },
    isQueued: (id) => waiting.some((run) => run.id === id),
    isLive: (id) => live.has(id),
    isRetrying: (id) => live.get(id)?.retrying === true,
    liveSince: (id) => live.get(id)?.firstSeq,
    stop(id, reason) {
      const entry = live.get(id);
      if (!entry) return false;
      // A run still opening is not open in its runner yet: the stop is asked again once it is.
      entry.stopAsked = reason;
      entry.runner?.stop(id, reason);
      return true;
    },
    settled(id) {
      if (!live.has(id) && !waiting.some((run) => run.id === id)) return Promise.resolve(undefined);
      return new Promise((resolve) => {
        const list = waiters.get(id) ?? [];
        list.push(resolve);
        waiters.set(id, list);
      });
    },
    liveIds: () => [...live.keys()],
    async drain(reason) {
      waiting.length = 0;
      const running = [...live.entries()];
      for (const [id, entry] of running) entry.runner?.stop(id, reason);
      await Promise.all(running.map(([, entry]) => entry.done));
    },
  };
}

function settle(state: QueueState, id: string, result: DoTaskResult | undefined): void {
  const waiting = state.waiters.get(id) ?? [];
  state.waiters.delete(id);
  for (const resolve of waiting) resolve(result);
}

function pump(state: QueueState): void {
  while (state.live.size < state.options.maxConcurrent && state.waiting.length > 0)
    launch(state, state.waiting.shift()!);
}

function launch(state: QueueState, run: QueuedRun): void {
  const { logger, onStartFailed } = state.options;
  const entry: LiveRun = { retrying: false, done: Promise.resolve(undefined) };
  state.live.set(run.id, entry);
  entry.done = execute(state.options, run, entry)
    .catch(async (error: unknown) => {
      logger.warn({ task_id: run.id, err: errorMessage(error) }, `the ${run.kind} of a queued run failed`);
      await onStartFailed(run, error).catch(() => undefined);
      return undefined;
    })
    .then((result) => {
      state.live.delete(run.id);
      settle(state, run.id, result);
      pump(state);
      return result;
    });
}

async function execute(
  { runnerFor, onFrame, logger }: RunQueueOptions,
  run: QueuedRun,
  entry: LiveRun,
): Promise<DoTaskResult | undefined> {
  const runner = await runnerFor(run.root);
  entry.runner = runner;
  const off = runner.subscribe(run.id, (frame) => {
    if (frame.type === 'warning' && frame.data?.retry !== undefined) entry.retrying = true;
    else if (frame.type === 'usage.delta' || frame.type === 'finish') entry.retrying = false;
    entry.firstSeq ??= frame.seq;
    onFrame?.(frame, run.id);
  });
  try {
    const handle =
      run.kind === 'start'
        ? await runner.startTask(run.root, run.spec, { taskId: run.id })
        : await runner.resume(run.root, { ...(run.budgets ? { budgets: run.budgets } : {}), by: run.by });
    if (entry.stopAsked) runner.stop(run.id, entry.stopAsked);
    logger.info({ task_id: run.id }, run.kind === 'start' ? 'run started' : 'run resumed');
    const result = await runner.run(handle, { view: 'full' });
    logger.info({ task_id: run.id, finish_reason: result.finishReason }, 'run finished');
    return result;
  } finally {
    off();
  }
}
