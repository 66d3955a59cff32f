import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { createBwrapSandbox } from '../../../sandbox/bwrap-sandbox.ts';
import { checkSandbox } from '../../../sandbox/check-sandbox.ts';
import { DEFAULT_SANDBOX_PATH, type Sandbox } from '../../../sandbox/sandbox.ts';
import { agencyRoot as agencyRootOf } from '../../../config/agency-root.ts';
import { errorMessage } from '../../../core/errors.ts';
import { createRoleRegistry } from '../../../roles/registry.ts';
import { cliResult } from '../cli/cli-result.ts';
import { runChildCli } from '../cli/run-cli.ts';
import type { Executor, ExecutorRequest, ExecutorResult } from '../executor.ts';
import { createJournalMapper, followRun } from './builtin-events.ts';
import { prepareTurnRoot, resumeTurnRoot } from './builtin-task-root.ts';

/** Options for {@link createBuiltinExecutor}: what an operator would pass to `agency run`. */
export type BuiltinExecutorOptions = {
  /** The model spec when the task names none: `anthropic:<model>`, `openai-compatible:<url>#<model>`, … */
  model?: string | undefined;
  /**
   * `file`: approval requests wait in `<task root>/progress/approvals/requests/` for `agency approve`, as from the
   * CLI; `auto`: approved at once, both files still written. @default 'file'
   */
  approvals?: 'file' | 'auto' | undefined;
  /** The operator config file (policy, network allowlist), as `agency run --config`. @default none: the defaults */
  operatorConfig?: string | undefined;
  /** `agency run --policy`. @default the operator config's, else `default` */
  policy?: 'default' | 'strict' | 'permissive' | undefined;
  /** `agency run --role`: a role of the data root `agencyRoot` (docs/roles.md). @default none */
  role?: string | undefined;
  /** The data root whose `roles/` the role comes from; passed to the run as `AGENCY_ROOT`. @default `AGENCY_ROOT` */
  agencyRoot?: string | undefined;
  /** More `agency run` flags (budgets, `--allow-host`). @default [] */
  extraArgs?: readonly string[] | undefined;
  /** agency's CLI. @default this checkout's or package's bin/agency.js */
  agencyBin?: string | undefined;
  /** The Node that runs it. @default process.execPath */
  node?: string | undefined;
  /** The sandbox the run's `sandbox_exec` and `test_runner` use, checked before a task starts. @default bwrap */
  sandbox?: Sandbox | undefined;
  /** Between SIGTERM and SIGKILL on cancel or timeout. @default 10_000 */
  killGraceMs?: number | undefined;
  /** Raw stdout and stderr kept per run. @default 1 MiB */
  outputLimitBytes?: number | undefined;
};

const AGENCY_BIN = join(import.meta.dirname, '../../../../bin/agency.js');
const exec = promisify(execFile);

/**
 * The built-in executor: agency's own governed runner, `node bin/agency.js run <session dir>/turn-<n> --model M
 * --approvals file|auto --sandbox bwrap`, as a child process in its own process group; a task taken over from a lost
 * worker (`retake`) is `agency resume`d from its journal in a copy of the turn's root (`turn-<n>.e<epoch>/`). Its
 * events come from the run's journal. It runs outside the executors' bwrap sandbox: the runner's file tools are confined to its task root,
 * its network tools to the operator's allowlist, and the commands a model asks for run in bwrap — which could not
 * start inside another bwrap (docs/fleet.md, "Executors"). It refuses to start a task when that bwrap does not work.
 *
 * @example
 * const executor = createBuiltinExecutor({ model: 'anthropic:claude-sonnet-4-5', approvals: 'auto' });
 */
export function createBuiltinExecutor({
  model: defaultModel,
  approvals = 'file',
  operatorConfig,
  policy,
  role,
  agencyRoot = agencyRootOf().root,
  extraArgs = [],
  agencyBin = AGENCY_BIN,
  node = process.execPath,
  sandbox = createBwrapSandbox(),
  killGraceMs = 10_000,
  outputLimitBytes = 1024 * 1024,
}: BuiltinExecutorOptions = {}): Executor {
  const flags = [
    ...['--approvals', approvals, '--sandbox', 'bwrap'],
    ...(operatorConfig ? ['--config', operatorConfig] : []),
    ...(policy ? ['--policy', policy] : []),
    ...(role ? ['--role', role] : []),
    ...extraArgs,
  ];
  const roleEnv = role ? { AGENCY_ROOT: agencyRoot } : {};
  return {
    kind: 'builtin',
    async check() {
      const status = await checkSandbox(sandbox);
      if (!status.ok)
        return { ok: false, problem: `The governed runner's sandbox cannot run: ${status.error.message}` };
      const roleProblem = role ? await checkRole(agencyRoot, role) : undefined;
      if (roleProblem) return { ok: false, problem: roleProblem };
      try {
        const { stdout } = await exec(node, [agencyBin, '--version'], { timeout: 30_000 });
        return { ok: true, version: `agency ${stdout.trim()}` };
      } catch (error) {
        return { ok: false, problem: `\`${node} ${agencyBin} --version\` failed: ${String(error)}` };
      }
    },
    async run(request) {
      const status = await checkSandbox(sandbox);
      if (!status.ok)
        return failed('sandbox_error', `The governed runner's sandbox cannot run: ${status.error.message}`);
      const model = request.model ?? defaultModel;
      if (!model) return failed('executor_error', 'No model: the task names none and the executor has no default.');
      return runTurn(request, { node, agencyBin, model, flags, roleEnv, killGraceMs, outputLimitBytes });
    },
  };
}

type TurnOptions = {
  node: string;
  agencyBin: string;
  model: string;
  flags: string[];
  roleEnv: Record<string, string>;
  killGraceMs: number;
  outputLimitBytes: number;
};

async function runTurn(request: ExecutorRequest, options: TurnOptions): Promise<ExecutorResult> {
  let prepared: Awaited<ReturnType<typeof prepareTurnRoot>>;
  try {
    prepared = request.retake
      ? await resumeTurnRoot(request.workdir, request.retake.epoch)
      : await prepareTurnRoot(request.workdir, request.prompt);
  } catch (error) {
    return failed('executor_error', `The task root could not be made in ${request.workdir}: ${errorMessage(error)}`);
  }
  const { root, turn } = prepared;
  const how = request.retake ? `resume of the lost run, take ${request.retake.epoch}` : 'run';
  request.onEvent({
    type: 'started',
    message: `agency ${how}, turn ${turn} of session ${request.sessionId}, in ${root}`,
  });
  const mapper = createJournalMapper(request.onEvent, root);
  const following = new AbortController();
  const followed = followRun(join(root, 'progress', 'events.ndjson'), mapper, following.signal, request.onEvent);
  const command = request.retake ? 'resume' : 'run';
  const run = await runChildCli({
    command: [options.node, options.agencyBin, command, root, '--model', options.model, ...options.flags],
    workdir: request.workdir,
    env: { PATH: DEFAULT_SANDBOX_PATH, ...request.env, ...options.roleEnv },
    timeoutMs: request.timeoutMs,
    killGraceMs: options.killGraceMs,
    signal: request.signal,
    onLine: () => {},
    outputLimitBytes: options.outputLimitBytes,
  }).finally(() => following.abort());
  await followed;
  // Without a finish frame the run never started (a bad flag, a missing API key: exit code 2, said on stderr), and
  // the error is read from stderr.
  return cliResult(run, mapper.finish(), { name: 'The governed run', timeoutMs: request.timeoutMs });
}

function failed(type: 'sandbox_error' | 'executor_error', message: string): ExecutorResult {
  return { exitCode: null, output: '', stdout: '', stderr: '', error: { type, message } };
}

// A worker whose role is unknown or whose role file is wrong says so at its check, before it takes a task.
async function checkRole(root: string, role: string): Promise<string | undefined> {
  try {
    await createRoleRegistry(root).get(role);
    return undefined;
  } catch (error) {
    return `The role "${role}" cannot be used: ${errorMessage(error)}`;
  }
}
