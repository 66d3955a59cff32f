import type { WorkerConfig } from '../../config/worker-config.ts';
import type { WorkerStatus } from '../api/worker-schemas.ts';
import type { LifecycleLog } from './lifecycle-log.ts';
import { previewOf } from './task-record.ts';
import type { Worker } from './worker.ts';

/** What `GET /status` is made of. */
export type StatusSource = {
  worker: Worker;
  config: WorkerConfig;
  lifecycle: LifecycleLog;
  version: string;
  /** The port bound (the config's, or the one picked for port 0). */
  port: () => number;
  /** The executor's version once its check passed. */
  executorVersion: () => string | undefined;
  /** When the worker's process started (ms since the epoch): `uptime_seconds` counts from it. */
  startedAt: number;
  /** The worker's process, which `agency kill` signals. */
  pid: number;
  now: () => number;
};

/**
 * The worker's status, seed 004's `/status`: what it is, its state (`starting` until its config and executor are
 * checked, then `idle` or `working`, `stopping` once shut down), its uptime since its process started, the task it
 * runs, the config a director may rely on (its pid for `agency kill`; never credentials or environment values), and
 * the last lifecycle lines.
 */
export function workerStatus(source: StatusSource): WorkerStatus {
  const { worker, config, now } = source;
  const active = worker.active();
  const state =
    worker.phase === 'starting' ? 'starting' : worker.phase === 'stopping' ? 'stopping' : active ? 'working' : 'idle';
  return {
    type: 'agent',
    interfaces: ['statusable', 'taskable', 'observable'],
    name: config.name,
    version: source.version,
    state,
    uptime_seconds: Math.max(0, Math.floor((now() - source.startedAt) / 1_000)),
    current_task: active
      ? {
          id: active.record.task_id,
          started_at: active.record.started_at ?? new Date(now()).toISOString(),
          prompt_preview: previewOf(active.record.prompt),
        }
      : null,
    config: {
      pid: source.pid,
      port: source.port(),
      bind: config.bind,
      executor: config.executor,
      executor_version: source.executorVersion() ?? null,
      model: config.model ?? null,
      timeout_seconds: config.timeoutMs / 1_000,
      max_turns: config.maxTurns ?? null,
      history_limit: config.historyLimit,
      sandbox_network: config.sandbox.network,
    },
    log: source.lifecycle.recent(),
  };
}
