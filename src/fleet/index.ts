// agency/fleet: the fleet's public API. A typed client of a worker's API (seed 004 appendix A), the discovery that
// finds workers (a port scan and a static list) and keeps their health, and the worker daemon itself (`agency worker`
// in a process of your own). Node only: the worker spawns its executors, and discovery probes TCP ports.

export type {
  CancelResponse,
  ContinueResponse,
  EndResponse,
  ExecutorKind,
  HistoryRecord,
  ShutdownResponse,
  TaskErrorType,
  WorkerStatus,
  WorkerTask,
  WorkerTaskRequest,
  WorkerTaskState,
} from './api/worker-schemas.ts';
export { FINAL_WORKER_TASK_STATES, WORKER_TASK_STATES } from './api/worker-schemas.ts';
export type {
  CallOptions,
  FetchFunction,
  HistoryPage,
  TaskCreated,
  WorkerClient,
  WorkerClientOptions,
} from './worker-client.ts';
export { createWorkerClient } from './worker-client.ts';
export type { Component, Health } from './discovery/component.ts';
export { isIdleWorker } from './discovery/component.ts';
export type { Discovery, DiscoveryOptions } from './discovery/discovery.ts';
export { createDiscovery } from './discovery/discovery.ts';
export type { PortRange } from './discovery/port-scan.ts';
export type { RunningWorker, StartWorkerOptions } from './worker/start-worker.ts';
export { startWorker } from './worker/start-worker.ts';
export type { WorkerConfig } from '../config/worker-config.ts';
export { loadWorkerConfig, workerConfigPath } from '../config/worker-config.ts';
export { agencyRoot, agencyRootAt } from '../config/agency-root.ts';
