import { resolveModelOrReplay } from '../../../model/cassette/resolve-or-replay.ts';
import { createRunner, type TaskHandle } from '../../../task/runner.ts';
import type { TaskSpec } from '../../../task/task-spec.ts';
import { taskTools } from '../../../tools/builtin/task-tools.ts';
import { isTaskableAgent } from '../../discovery/component.ts';
import { createDiscovery } from '../../discovery/discovery.ts';
import { cancelDelegations } from '../../directors/manager/tools/cancel-delegations.ts';
import { createFleetDispatch } from '../../directors/fleet-dispatch.ts';
import type { ManagerSettings } from '../../directors/manager/manager-config.ts';
import {
  createDelegationLedger,
  type DelegationContext,
  delegationTools,
} from '../../directors/manager/tools/index.ts';
import { createWorkerClient, type WorkerClient } from '../../worker-client.ts';
import { createJournalMapper } from '../builtin/builtin-events.ts';
import { cliResult } from '../cli/cli-result.ts';
import type { Executor, ExecutorRequest, ExecutorResult } from '../executor.ts';
import type { RunGovernance, RunRules } from '../load-executor.ts';
import { managerTurn } from './manager-turn.ts';

/** Options for {@link createManagerExecutor}. */
export type ManagerExecutorOptions = {
  settings: ManagerSettings;
  /** The model spec when the task names none. */
  model?: string | undefined;
  /** The operator's rules for its runs. */
  governance: RunGovernance;
  /** The client of a worker. @default createWorkerClient */
  clientFor?: (url: string) => WorkerClient;
};

/**
 * The manager's executor: agency's governed runner, in the manager's own process, with the delegation tools
 * (`list_workers`, `delegate_task`, `await_task`, `task_result`, `inspect_workdir`) and the task folder's file tools
 * (reading its own task root, writing only its notes and `progress/artifacts/`); no `sandbox_exec`, and the network
 * tools only with `sandbox.network`. Each prompt of a session is a turn of its own, as the built-in executor's; a
 * turn a crash cut off is resumed from its journal by the session's next prompt (see `managerTurn`).
 */
export function createManagerExecutor({
  settings,
  model,
  governance,
  clientFor = defaultClient,
}: ManagerExecutorOptions): Executor {
  const { discovery } = settings;
  const discover = () =>
    createDiscovery({
      ports: discovery.method === 'static' ? null : { from: discovery.port_range[0], to: discovery.port_range[1] },
      urls: discovery.static,
      clientFor,
    }).refresh();
  // Delegations go to agents only: never to a director, this manager among them.
  const dispatch = createFleetDispatch({
    candidates: async () => (await discover()).filter(isTaskableAgent),
    clientFor,
  });
  return {
    kind: 'manager',
    check: async () => ({ ok: true, version: 'governed runner with delegation tools' }),
    async run(request) {
      const spec = request.model ?? model;
      if (!spec) return failed('No model: the task names none and the manager\'s config has no "model".');
      const turn = await managerTurn(request.workdir, request.prompt);
      request.onEvent({
        type: 'started',
        message: turn.resumed
          ? `resuming turn ${turn.turn} of session ${request.sessionId} from its journal, in ${turn.root}`
          : `governed run, turn ${turn.turn} of session ${request.sessionId}, in ${turn.root}`,
      });
      const context: DelegationContext = {
        ledger: createDelegationLedger(turn.root),
        discover,
        dispatch,
        clientFor,
        readablePaths: settings.readOnlyPaths,
        waitForWorkerMs: settings.waitForWorkerMs,
        now: Date.now,
      };
      return runGoverned(request, { ...turn, spec, settings, context, governance });
    },
  };
}

type GovernedTurn = {
  root: string;
  resumed: boolean;
  spec: string;
  settings: ManagerSettings;
  context: DelegationContext;
  governance: RunGovernance;
};

async function runGoverned(request: ExecutorRequest, turn: GovernedTurn): Promise<ExecutorResult> {
  const { root, settings, context } = turn;
  const mapper = createJournalMapper(request.onEvent, root);
  let handle: TaskHandle | undefined;
  try {
    const rules = await turn.governance(root, { config: settings.operatorConfig, policy: settings.policy });
    const runner = createRunner({
      model: resolveModelOrReplay(turn.spec, { env: request.env, cwd: root }),
      tools: (taskPaths) => [...ownTools(taskPaths, rules, settings), ...delegationTools(context)],
      policy: rules.policy,
      warnings: rules.warnings,
      approvals: settings.approvals,
    });
    runner.subscribe((frame) => mapper.handle(frame));
    handle = turn.resumed
      ? await runner.resume(root, { by: `manager ${settings.name}` })
      : await runner.startTask(root, specOf(turn.spec, settings, rules));
    const stop = () => runner.stop(handle!, 'cancelled');
    request.signal.addEventListener('abort', stop, { once: true });
    if (request.signal.aborted) stop();
    await runner.run(handle).finally(() => request.signal.removeEventListener('abort', stop));
    if (request.signal.aborted)
      for (const message of await cancelDelegations(context)) request.onEvent({ type: 'warning', message });
  } catch (error) {
    return { ...failed(`The manager's governed run failed: ${String(error)}`), ...withoutError(mapper.finish()) };
  }
  const parsed = mapper.finish();
  const { signal } = request;
  const outcome = !signal.aborted ? 'exited' : signal.reason === 'timeout' ? 'timeout' : 'cancelled';
  return cliResult({ outcome, exitCode: parsed.error ? 1 : 0, stdout: '', stderr: '' }, parsed, {
    name: 'The manager',
    timeoutMs: request.timeoutMs,
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

function withoutError({ output, usage, costUsd }: ReturnType<ReturnType<typeof createJournalMapper>['finish']>) {
  return { output, ...(usage ? { usage } : {}), ...(costUsd !== undefined ? { costUsd } : {}) };
}

function failed(message: string): ExecutorResult {
  return { exitCode: null, output: '', stdout: '', stderr: '', error: { type: 'executor_error', message } };
}

function defaultClient(url: string): WorkerClient {
  return createWorkerClient(url);
}
