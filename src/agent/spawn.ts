import { abortedError } from '../core/clock.ts';
import { AgencyError } from '../core/errors.ts';
import { type IdGenerator, newId as defaultNewId } from '../core/ids.ts';
import { isoTime } from './iso-time.ts';
import { agentResult, answered } from './result.ts';
import { emptyUsage } from '../core/usage.ts';
import type { Agent, AgentResult, AgentTask, ExecuteOptions } from './types.ts';

/** Options for {@link spawn}: the execution's options, and the clock and ids of the handle. */
export type SpawnOptions = ExecuteOptions & {
  /** @default { now: Date.now, newId: the process-wide generator } */
  deps?: { now?: () => number; newId?: IdGenerator };
};

/** Where a background run is. */
export type SpawnState = 'pending' | 'running' | 'completed' | 'suspended' | 'failed' | 'cancelled';

/** A handle on an agent running in the background. */
export type AgentHandle = {
  readonly id: string;
  state(): SpawnState;
  /** Resolves when the run has ended, however it ended. Never rejects. */
  readonly done: Promise<void>;
  /**
   * Waits for the result. Aborting `signal` stops the waiting (rejecting with `aborted`), not the run.
   */
  await(signal?: AbortSignal): Promise<AgentResult>;
  /** Asks the run to stop; it ends as `cancelled`. */
  cancel(reason?: string): void;
};

/**
 * Runs an agent in the background. It is panic-safe: if the agent throws instead of returning a result, the handle
 * moves to `failed` with that error in its result, and `done` still resolves. The handle's `id` is the result's `id`.
 *
 * @example
 * const handle = spawn(agent, { input: 'Summarise the report' });
 * const result = await handle.await();
 */
export function spawn(agent: Agent, task: AgentTask, { deps = {}, ...options }: SpawnOptions = {}): AgentHandle {
  const { now = Date.now, newId = defaultNewId } = deps;
  const controller = new AbortController();
  const signal = options.signal ? AbortSignal.any([options.signal, controller.signal]) : controller.signal;
  const id = options.runId ?? newId('run');
  const startedAt = isoTime(now());
  let state: SpawnState = 'pending';
  let result: AgentResult | undefined;

  const run = (async (): Promise<AgentResult> => {
    await Promise.resolve();
    state = 'running';
    try {
      return await agent.execute(task, { ...options, signal, runId: id });
    } catch (error) {
      return failedResult(error, id, startedAt, isoTime(now()));
    }
  })().then((value) => {
    result = value;
    state = stateOf(value, controller.signal.aborted);
    return value;
  });

  return {
    id,
    state: () => state,
    done: run.then(() => undefined),
    await(waitSignal) {
      if (!waitSignal) return run;
      if (waitSignal.aborted) return Promise.reject(abortedError(waitSignal));
      return new Promise<AgentResult>((resolve, reject) => {
        const onAbort = () => reject(abortedError(waitSignal));
        waitSignal.addEventListener('abort', onAbort, { once: true });
        void run.then((value) => {
          waitSignal.removeEventListener('abort', onAbort);
          resolve(value);
        });
      });
    },
    cancel(reason = 'cancelled') {
      if (result) return;
      controller.abort(new AgencyError('aborted', reason));
    },
  };
}

function stateOf(result: AgentResult, cancelled: boolean): SpawnState {
  if (result.finishReason === 'suspended') return 'suspended';
  if (result.finishReason === 'aborted' || cancelled) return 'cancelled';
  return answered(result) ? 'completed' : 'failed';
}

function failedResult(error: unknown, id: string, startedAt: string, finishedAt: string): AgentResult {
  return agentResult(
    { runId: id, startedAt, usage: emptyUsage() },
    { reason: 'error', error: AgencyError.from(error) },
    finishedAt,
  );
}
