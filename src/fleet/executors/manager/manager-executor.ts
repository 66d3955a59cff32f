import { existsSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { createBwrapSandbox } from '../../../sandbox/bwrap-sandbox.ts';
import { checkSandbox } from '../../../sandbox/check-sandbox.ts';
import { DEFAULT_SANDBOX_PATH, type Sandbox } from '../../../sandbox/sandbox.ts';
import type { ManagerSettings } from '../../directors/manager/manager-config.ts';
import { cancelDelegations } from '../../directors/manager/tools/cancel-delegations.ts';
import { createJournalMapper, followRun } from '../builtin/builtin-events.ts';
import { checkCli } from '../cli/check-cli.ts';
import { limitsFor } from '../cli/cli-executor-options.ts';
import { cliResult } from '../cli/cli-result.ts';
import type { CliInstall } from '../cli/resolve-cli.ts';
import { type CliSandboxOptions, runSandboxedCli } from '../cli/run-cli.ts';
import type { Executor, ExecutorRequest, ExecutorResult } from '../executor.ts';
import type { RunGovernance } from '../load-executor.ts';
import { requestCancel } from './cancel-request.ts';
import type { ManagerJob } from './manager-job.ts';
import { delegationContextOf } from './manager-run.ts';
import { managerTurn } from './manager-turn.ts';

/** Options for {@link createManagerExecutor}. */
export type ManagerExecutorOptions = {
  settings: ManagerSettings;
  /** The model spec when the task names none. */
  model?: string | undefined;
  /** The operator's rules for its runs, checked before each turn starts. */
  governance: RunGovernance;
  /** The sandbox every turn runs in. @default bwrap */
  sandbox?: Sandbox | undefined;
  /** Between SIGTERM and SIGKILL on cancel or timeout. @default 10_000 */
  killGraceMs?: number | undefined;
  /** agency's CLI, which runs the turn (`agency manager-turn`). @default this checkout's or package's bin/agency.js */
  agencyBin?: string | undefined;
};

const AGENCY_BIN = join(import.meta.dirname, '../../../../bin/agency.js');
// Programs here are visible in every sandbox; anything else must be bound.
const SYSTEM_DIRS = ['/usr/', '/bin/', '/lib/', '/lib64/'];

/**
 * The manager's executor: each prompt of a session is a turn of agency's governed runner with the delegation tools
 * (`list_workers`, `delegate_task`, `await_task`, `task_result`, `inspect_workdir`) and the task folder's file tools,
 * run by `agency manager-turn` as a child process inside the bwrap sandbox: writable only in its session dir (where
 * its task roots and journals are), the delegated workdirs' `read_only_paths` and agency's install read-only, the
 * host's network shared (it reaches its model and the workers' HTTP on loopback). Its events come from the turn's
 * journal; a cancel asks the child to stop (killing its process group if it has not within `killGraceMs`), then cancels
 * the delegations the turn left running. A turn a crash cut off is resumed from its journal by the
 * session's next prompt (see `managerTurn`). Without a working sandbox it refuses to start (`sandbox_unavailable`).
 */
export function createManagerExecutor({
  settings,
  model,
  governance,
  sandbox = createBwrapSandbox(),
  killGraceMs = 10_000,
  agencyBin = AGENCY_BIN,
}: ManagerExecutorOptions): Executor {
  const install = managerInstall(agencyBin);
  return {
    kind: 'manager',
    async check() {
      const status = await checkSandbox(sandbox);
      if (!status.ok) return { ok: false, problem: `The manager's sandbox cannot run: ${status.error.message}` };
      const checked = await checkCli(() => install, { sandbox, readOnlyPaths: [], name: 'agency' });
      return checked.ok ? { ok: true, version: `governed runner with delegation tools, ${checked.version}` } : checked;
    },
    async run(request) {
      const spec = request.model ?? model;
      if (!spec) return failed('No model: the task names none and the manager\'s config has no "model".');
      const status = await checkSandbox(sandbox);
      if (!status.ok) return failed(`The manager's sandbox cannot run: ${status.error.message}`, 'sandbox_error');
      const turn = await managerTurn(request.workdir, request.prompt);
      let operatorConfig: string | null;
      try {
        const rules = await governance(turn.root, { config: settings.operatorConfig, policy: settings.policy });
        operatorConfig = rules.configFile && existsSync(rules.configFile) ? rules.configFile : null;
      } catch (error) {
        return failed(`The manager's run was refused by the operator's rules: ${String(error)}`);
      }
      request.onEvent({
        type: 'started',
        message: turn.resumed
          ? `resuming turn ${turn.turn} of session ${request.sessionId} from its journal, in ${turn.root}`
          : `governed run in the sandbox, turn ${turn.turn} of session ${request.sessionId}, in ${turn.root}`,
      });
      const job: ManagerJob = {
        version: 1,
        config_file: settings.file,
        root: turn.root,
        resumed: turn.resumed,
        session_id: request.sessionId,
        model: spec,
        operator_config: operatorConfig,
      };
      const where = managerSandbox({ settings, install, sandbox, workdir: request.workdir, operatorConfig });
      const result = await runTurn(request, job, { install, where, killGraceMs });
      // A cancelled turn's delegations are cancelled on their workers, from here: the sandbox is gone by now.
      if (request.signal.aborted)
        for (const message of await cancelDelegations(delegationContextOf(settings, turn.root)))
          request.onEvent({ type: 'warning', message });
      return result;
    },
  };
}

/** How the manager's turn starts: Node, agency's CLI, and the install the sandbox shows read-only. */
export function managerInstall(agencyBin: string = AGENCY_BIN): CliInstall {
  const node = realpathSync(process.execPath);
  const bin = realpathSync(agencyBin);
  const bound = SYSTEM_DIRS.some((dir) => node.startsWith(dir)) ? [] : [node];
  return { file: bin, command: [node, bin], readOnlyPaths: [installOf(bin), ...bound] };
}

/**
 * What of agency's install the child needs: a checkout's root (its `bin/`, `src/` and `node_modules/`), or, installed
 * as a package, the `node_modules` it lies in (its dependencies are installed beside it).
 */
export function installOf(agencyBin: string): string {
  const packageDir = join(agencyBin, '..', '..');
  const at = packageDir.indexOf('/node_modules/');
  return at === -1 ? packageDir : packageDir.slice(0, at + '/node_modules'.length);
}

/**
 * Where the manager's child may read, write and connect: its session dir writable (it may clone into it); agency's
 * install, its config file, the operator config and the delegated workdirs' `read_only_paths` read-only; the host's
 * network shared, for its model and the workers' HTTP on loopback. Nothing else of the host: not the data root's
 * `credentials/`, not the other sessions.
 */
export function managerSandbox(options: {
  settings: Pick<ManagerSettings, 'file' | 'readOnlyPaths'>;
  install: CliInstall;
  sandbox: Sandbox;
  workdir: string;
  operatorConfig: string | null;
}): CliSandboxOptions {
  const { settings, install, sandbox, workdir, operatorConfig } = options;
  return {
    sandbox,
    readOnlyPaths: [
      ...install.readOnlyPaths,
      settings.file,
      ...(operatorConfig ? [operatorConfig] : []),
      ...settings.readOnlyPaths,
    ],
    readWritePaths: [workdir],
    allowNetwork: true,
  };
}

async function runTurn(
  request: ExecutorRequest,
  job: ManagerJob,
  { install, where, killGraceMs }: { install: CliInstall; where: CliSandboxOptions; killGraceMs: number },
): Promise<ExecutorResult> {
  const mapper = createJournalMapper(request.onEvent, job.root);
  const following = new AbortController();
  const followed = followRun(join(job.root, 'progress', 'events.ndjson'), mapper, following.signal, request.onEvent);
  const kill = stopGently(request.signal, job.root, killGraceMs);
  const run = await runSandboxedCli({
    ...where,
    command: [...install.command, 'manager-turn', job.root],
    workdir: request.workdir,
    env: { PATH: DEFAULT_SANDBOX_PATH, HOME: request.workdir, ...request.env },
    stdin: JSON.stringify(job),
    // A backstop: the worker's own timeout aborts the request first, which stops the run gently.
    timeoutMs: request.timeoutMs + killGraceMs,
    killGraceMs,
    signal: kill.signal,
    onLine: () => {},
    outputLimitBytes: 1024 * 1024,
    limits: limitsFor(undefined, request.timeoutMs),
  }).finally(() => {
    following.abort();
    kill.close();
  });
  await followed;
  const { signal } = request;
  // Stopped on request, the child ends on its own: that is a cancel (or the worker's timeout), not an exit.
  const stopped = signal.aborted && run.outcome === 'exited';
  const outcome = stopped ? (signal.reason === 'timeout' ? 'timeout' : 'cancelled') : run.outcome;
  return cliResult({ ...run, outcome }, mapper.finish(), { name: 'The manager', timeoutMs: request.timeoutMs });
}

// On abort, the child is asked to stop (its run journals `finish` and ends); the returned signal, which kills its
// process group, aborts only if it has not ended after `killGraceMs`.
function stopGently(signal: AbortSignal, root: string, killGraceMs: number) {
  const kill = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const onAbort = () => {
    requestCancel(root).catch(() => kill.abort(signal.reason));
    timer = setTimeout(() => kill.abort(signal.reason), killGraceMs);
  };
  signal.addEventListener('abort', onAbort, { once: true });
  if (signal.aborted) onAbort();
  return {
    signal: kill.signal,
    close: () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
    },
  };
}

function failed(message: string, type: 'executor_error' | 'sandbox_error' = 'executor_error'): ExecutorResult {
  return { exitCode: null, output: '', stdout: '', stderr: '', error: { type, message } };
}
