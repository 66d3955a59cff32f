// A worker built in-process for route tests: its config, history and lifecycle log in a fresh data root, and a gate
// executor whose every run waits for the test to finish it (or for its signal, when it ends with partial output).
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { agencyRootAt, type AgencyRoot } from '../../src/config/agency-root.ts';
import { resolveWorkerConfig, workerConfigFileSchema, type WorkerConfig } from '../../src/config/worker-config.ts';
import { createRedactor, type Redactor } from '../../src/core/redact.ts';
import type { CredentialBroker } from '../../src/credentials/credential-broker.ts';
import type { Executor, ExecutorRequest, ExecutorResult } from '../../src/fleet/executors/executor.ts';
import { createHistoryStore } from '../../src/fleet/worker/history-store.ts';
import { createLifecycleLog } from '../../src/fleet/worker/lifecycle-log.ts';
import { createWorkerApp } from '../../src/fleet/worker/worker-app.ts';
import { workerStatus } from '../../src/fleet/worker/worker-status.ts';
import { createWorker, type Worker } from '../../src/fleet/worker/worker.ts';
import { createLogger } from '../../src/obs/logger.ts';
import type { NamedToken } from '../../src/credentials/bearer-token.ts';
import { allowedHosts } from '../../src/http/hosts.ts';
import { silentLogger } from '../../src/service/service-logger.ts';
import { until } from './until.ts';

export { until };

/** One run of the gate executor: what it was asked, and how the test ends it. */
export type GateRun = {
  request: ExecutorRequest;
  finish(result?: Partial<ExecutorResult>): void;
  fail(error: unknown): void;
};

/** An executor whose runs wait for the test. An aborted run ends with `partial` output unless `ignoreAbort`. */
export function gateExecutor({ ignoreAbort = false } = {}) {
  const runs: GateRun[] = [];
  let taken = 0;
  const executor: Executor = {
    kind: 'claude',
    check: async () => ({ ok: true, version: '9.9.9 (gate)' }),
    run: (request) =>
      new Promise<ExecutorResult>((resolve, reject) => {
        const done = { exitCode: 0, output: 'done', stdout: 'raw out\n', stderr: '' };
        runs.push({ request, finish: (result = {}) => resolve({ ...done, ...result }), fail: reject });
        if (!ignoreAbort)
          request.signal.addEventListener('abort', () =>
            setTimeout(
              () => resolve({ exitCode: 143, output: 'partial', stdout: 'partial out\n', stderr: 'SIGTERM\n' }),
              5,
            ),
          );
      }),
  };
  return {
    executor,
    runs,
    /** The next run not yet taken by a test, once it has started. */
    next: () => until(() => (runs[taken] ? runs[taken++] : undefined)),
  };
}

/** Options for {@link workerKit}. */
export type WorkerKitOptions = {
  config?: Record<string, unknown>;
  root?: AgencyRoot;
  executor?: Executor;
  gate?: ReturnType<typeof gateExecutor>;
  credentials?: CredentialBroker;
  tokens?: NamedToken[];
  redactor?: Redactor;
  ready?: boolean;
  stopGraceMs?: number;
  bodyBytes?: number;
};

/** A worker and its app on a fresh data root (or `root`), ready unless `ready: false`. */
export async function workerKit(options: WorkerKitOptions = {}) {
  const root = options.root ?? agencyRootAt(await mkdtemp(join(tmpdir(), 'agency-worker-')));
  const config: WorkerConfig = resolveWorkerConfig(
    workerConfigFileSchema.parse({ port: 9000, executor: 'claude', model: 'sonnet', ...options.config }),
    join(root.agents, 'w1', 'config.yaml'),
  );
  const redactor = options.redactor ?? createRedactor();
  const logged: string[] = [];
  const logger = createLogger({
    level: 'debug',
    destination: { write: (line: string) => logged.push(line) },
    redactor,
  });
  const lifecycle = createLifecycleLog({ logger, redactor, now: Date.now });
  const history = createHistoryStore({
    dir: join(config.instanceDir, 'history'),
    limit: config.historyLimit,
    now: Date.now,
    warn: (message) => lifecycle.warn(message),
  });
  const worker: Worker = createWorker({
    config,
    history,
    lifecycle,
    redactor,
    credentials: options.credentials,
    hostEnv: { PATH: '/usr/bin:/bin', SECRET_OF_THE_WORKER: 'never-passed-on' },
    home: join(config.instanceDir, 'home'),
    instructions: 'INSTRUCTIONS',
    stopGraceMs: options.stopGraceMs ?? 1_000,
  });
  const gate = options.gate ?? gateExecutor();
  const shutdowns: Array<Promise<void>> = [];
  const app = createWorkerApp({
    worker,
    status: () =>
      workerStatus({
        worker,
        config,
        lifecycle,
        version: '0.0.0-test',
        port: () => 9000,
        executorVersion: () => '9.9.9 (gate)',
        startedAt: Date.now(),
        pid: process.pid,
        now: Date.now,
      }),
    onShutdown: (drained) => shutdowns.push(drained),
    hosts: allowedHosts('127.0.0.1', 9000),
    tokens: options.tokens,
    logger: silentLogger,
    version: '0.0.0-test',
    validateResponses: true,
    ...(options.bodyBytes ? { bodyBytes: options.bodyBytes } : {}),
  });
  if (options.ready !== false) {
    await worker.recover();
    worker.ready(options.executor ?? gate.executor);
  }
  const request = (
    path: string,
    init: { method?: string; json?: unknown; body?: string; headers?: Record<string, string> } = {},
  ) =>
    app.request(path, {
      method: init.method ?? (init.json === undefined && init.body === undefined ? 'GET' : 'POST'),
      headers: {
        host: '127.0.0.1:9000',
        ...(init.json !== undefined || init.body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...init.headers,
      },
      ...(init.json !== undefined
        ? { body: JSON.stringify(init.json) }
        : init.body !== undefined
          ? { body: init.body }
          : {}),
    });
  const json = async <T = Record<string, unknown>>(
    path: string,
    init?: Parameters<typeof request>[1],
  ): Promise<{ status: number; body: T }> => {
    const response = await request(path, init);
    return { status: response.status, body: (await response.json()) as T };
  };
  return { root, config, worker, app, gate, request, json, lifecycle, logged, shutdowns, redactor };
}
