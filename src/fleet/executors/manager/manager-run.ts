// One turn of a manager's session, as the sandboxed child runs it (`agency manager-turn`): agency's governed runner
// with the delegation tools, its journal in the turn's task root, where the executor follows it.
import { resolveModelOrReplay } from '../../../model/cassette/resolve-or-replay.ts';
import { createRunner, type TaskHandle } from '../../../task/runner.ts';
import type { TaskSpec } from '../../../task/task-spec.ts';
import { taskTools } from '../../../tools/builtin/task-tools.ts';
import { isTaskableAgent } from '../../discovery/component.ts';
import { createDiscovery } from '../../discovery/discovery.ts';
import { createFleetDispatch } from '../../directors/fleet-dispatch.ts';
import { loadManagerConfig, type ManagerSettings } from '../../directors/manager/manager-config.ts';
import {
  createDelegationLedger,
  type DelegationContext,
  delegationTools,
} from '../../directors/manager/tools/index.ts';
import { createWorkerClient, type WorkerClient } from '../../worker-client.ts';
import type { RunGovernance, RunRules } from '../load-executor.ts';
import { watchCancelRequest } from './cancel-request.ts';
import type { ManagerJob } from './manager-job.ts';

/** What the child runs a job with. */
export type ManagerRunOptions = {
  /** The operator's rules (`agency manager-turn` passes agency run's). */
  governance: RunGovernance;
  /** The model's credentials and settings. */
  env: Record<string, string | undefined>;
  /**
   * Aborts on SIGTERM: the run stops as cancelled (the executor then cancels its delegations on their workers). A
   * cancel request in the turn's root (cancel-request.ts) stops it the same way.
   */
  signal: AbortSignal;
  /** @default createWorkerClient */
  clientFor?: (url: string) => WorkerClient;
};

/** The delegation context of a manager's run in `root`: its discovery, dispatch and ledger. */
export function delegationContextOf(
  settings: ManagerSettings,
  root: string,
  clientFor: (url: string) => WorkerClient = (url) => createWorkerClient(url),
): DelegationContext {
  const { discovery } = settings;
  const discover = () =>
    createDiscovery({
      ports: discovery.method === 'static' ? null : { from: discovery.port_range[0], to: discovery.port_range[1] },
      urls: discovery.static,
      clientFor,
    }).refresh();
  // Delegations go to agents only: never to a director, this manager among them.
  const dispatch = createFleetDispatch(
    { candidates: async () => (await discover()).filter(isTaskableAgent), clientFor },
    process.env,
    { database: settings.database, file: settings.file, labels: settings.labels },
  );
  return {
    ledger: createDelegationLedger(root),
    discover,
    dispatch,
    clientFor,
    readablePaths: settings.readOnlyPaths,
    waitForWorkerMs: settings.waitForWorkerMs,
    now: Date.now,
  };
}

/**
 * Runs (or resumes) the job's governed run to its end, writing its journal; the journal's `finish` says how it
 * ended. Rejects only when the run could not start (a bad config, the operator's rules), which the child reports on
 * stderr.
 */
export async function runManagerJob(job: ManagerJob, options: ManagerRunOptions): Promise<void> {
  const { manager: settings } = await loadManagerConfig(job.config_file);
  const context = delegationContextOf(settings, job.root, options.clientFor);
  const rules = await options.governance(job.root, {
    config: job.operator_config ?? undefined,
    policy: settings.policy,
  });
  const runner = createRunner({
    model: resolveModelOrReplay(job.model, { env: options.env, cwd: job.root }),
    tools: (taskPaths) => [...ownTools(taskPaths, rules, settings), ...delegationTools(context)],
    policy: rules.policy,
    warnings: rules.warnings,
    approvals: settings.approvals,
  });
  const handle: TaskHandle = job.resumed
    ? await runner.resume(job.root, { by: `manager ${settings.name}` })
    : await runner.startTask(job.root, specOf(job.model, settings, rules));
  const requested = new AbortController();
  const watch = watchCancelRequest(job.root, requested);
  const signal = AbortSignal.any([options.signal, requested.signal]);
  const stop = () => runner.stop(handle, 'cancelled');
  signal.addEventListener('abort', stop, { once: true });
  if (signal.aborted) stop();
  await runner.run(handle).finally(() => {
    signal.removeEventListener('abort', stop);
    watch.close();
  });
}

// What the manager may do with its own task folder: read it, write its notes and progress/artifacts/; no commands.
function ownTools(paths: Parameters<typeof taskTools>[0], run: RunRules, settings: ManagerSettings) {
  const network = settings.network && !run.offline ? { policy: { allow: run.allow } } : false;
  return taskTools(paths, { network, exec: false });
}

function specOf(model: string, settings: ManagerSettings, run: RunRules): TaskSpec {
  const { budgets } = settings;
  return {
    model,
    approvals: { mode: settings.approvals, ...(run.requireTools.length > 0 ? { requireTools: run.requireTools } : {}) },
    budgets: {
      ...(budgets.maxIterations ? { maxIterations: budgets.maxIterations } : {}),
      ...(budgets.maxCostUsd ? { maxCostUsd: budgets.maxCostUsd } : {}),
      ...(budgets.maxTotalTokens ? { maxTotalTokens: budgets.maxTotalTokens } : {}),
      ...(budgets.maxTimeMs ? { maxWallClockMs: budgets.maxTimeMs } : {}),
    },
  };
}
