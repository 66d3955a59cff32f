import type { LanguageModelV4 } from '@ai-sdk/provider';
import { AgencyError } from '../../core/errors.ts';
import { extendCatalog, type ModelPrice } from '../../core/model-catalog.ts';
import { cliLogger } from '../cli-logger.ts';
import { priceEntries } from '../../core/price-override.ts';
import type { StopReason } from '../../task/contracts/state.ts';
import { recordModel } from '../../model/cassette/record-model.ts';
import { resolveModelOrReplay } from '../../model/cassette/resolve-or-replay.ts';
import { createTaskFiles } from '../../task/fs/task-files.ts';
import { readJournal } from '../../task/journal/read-journal.ts';
import { type Budgets, readSpecFile, type TaskSpec } from '../../task/task-spec.ts';
import { checkTaskFolder, type TaskPaths } from '../../task/layout.ts';
import type { ResultView } from '../../task/result.ts';
import { createRunner, type RunnerOptions, type TaskHandle } from '../../task/runner.ts';
import { exitCodeFor } from '../exit-codes.ts';
import { type PromptFlags, promptOptions } from '../prompt-flags.ts';
import { createProgressView, formatResult, type Output } from '../render.ts';
import { runStopNotice, stopOnSignals } from '../signals.ts';
import { type OperatorFlags, readOperatorSettings } from '../operator-config.ts';
import { operatorPolicy, operatorWarnings } from '../operator-policy.ts';
import { cliTaskTools, narrowToOperator, readTaskConfig, type RunSettings, taskConfigPath } from '../task-config.ts';
import type { Role } from '../../roles/role.ts';
import { roleMemory, roleOf, roleTools, withRoleFlags } from '../role-options.ts';

/** Options of `agency run` and `agency resume`. */
export type RunCommandOptions = {
  model?: string;
  approvals?: 'file' | 'auto';
  maxIterations?: number;
  maxCost?: number;
  /** Prices from `--price`, each over the built-in price of its model. */
  price?: Array<[modelId: string, price: ModelPrice]>;
  maxTotalTokens?: number;
  maxTime?: number;
  view?: ResultView;
  json?: boolean;
  /** Where the structured log goes (`-`: stderr); none without it. */
  logFile?: string;
  record?: string;
  /** A model object to use instead of `model` (for programs that embed the CLI, such as the demo). */
  modelObject?: LanguageModelV4;
  /** A role from the roles registry (`AGENCY_ROOT/roles/`); the other flags override its presets. */
  role?: string;
} & OperatorFlags &
  PromptFlags;

// On resume, the run keeps the model it was started with unless --model overrides it. The journal's run.started
// frame holds the spec the run started with, so a spec.json lost or damaged since (which resume rewrites from the
// journal) still names it; a run killed before its first frame has only spec.json.
async function modelSpecFor(paths: TaskPaths, options: RunCommandOptions, mode: 'start' | 'resume'): Promise<string> {
  const specModel = mode === 'resume' && options.model === undefined ? await startedModel(paths) : undefined;
  const modelSpec = options.model ?? specModel ?? undefined;
  if (!modelSpec) {
    throw Object.assign(new Error('No model: pass --model, e.g. --model openai:gpt-4o, or --model replay:<cassette>'), {
      exitCode: 2,
    });
  }
  return modelSpec;
}

async function startedModel(paths: TaskPaths): Promise<string | undefined> {
  const journal = await readJournal(paths.events).catch(() => undefined);
  const started = journal?.frames.find((frame) => frame.type === 'run.started')?.data?.spec;
  const model = typeof started === 'object' && started !== null ? (started as { model?: unknown }).model : undefined;
  if (typeof model === 'string') return model;
  return (await readSpecFile(createTaskFiles(paths.root), paths.spec)).model ?? undefined;
}

// What the run may do: the operator's config and flags, narrowed (never widened) by task/agency.json.
async function runSettingsFor(paths: TaskPaths, options: RunCommandOptions): Promise<RunSettings> {
  const operator = await readOperatorSettings(options);
  return narrowToOperator(operator, await readTaskConfig(paths), taskConfigPath(paths));
}

function taskSpecFor(modelSpec: string, options: RunCommandOptions, settings: RunSettings): TaskSpec {
  return {
    model: modelSpec,
    approvals: {
      mode: options.approvals ?? 'file',
      ...(settings.requireTools.length > 0 ? { requireTools: settings.requireTools } : {}),
    },
    budgets: budgetsFor(options),
  };
}

// On `agency resume` the same flags raise (or set) the budgets of the rest of the run; the change is journaled.
function budgetsFor(options: RunCommandOptions): Budgets {
  return {
    ...(options.maxIterations ? { maxIterations: options.maxIterations } : {}),
    ...(options.maxCost ? { maxCostUsd: options.maxCost } : {}),
    ...(options.maxTotalTokens ? { maxTotalTokens: options.maxTotalTokens } : {}),
    ...(options.maxTime ? { maxWallClockMs: options.maxTime * 1000 } : {}),
  };
}

// Resuming a run that already finished is not a failure: report how it ended, with its exit code.
function exitCodeForFinishedRun(error: unknown, root: string, out: Output): number {
  const finished = AgencyError.isInstance(error) ? (error.details?.finishReason as StopReason | undefined) : undefined;
  if (!finished) throw error;
  out.write(`${error instanceof Error ? error.message : ''}. See: agency status ${root}\n`);
  return exitCodeFor(finished);
}

/** `agency run <root>` and `agency resume <root>`: run a task to the end, showing live progress. */
export async function runCommand(
  root: string,
  given: RunCommandOptions,
  mode: 'start' | 'resume',
  out: Output,
): Promise<number> {
  const paths = await checkTaskFolder(root);
  const role = await roleOf(given.role);
  const options = withRoleFlags(given, role);
  const settings = await runSettingsFor(paths, options);
  const modelSpec = await modelSpecFor(paths, options, mode);
  let model = options.modelObject ?? resolveModelOrReplay(modelSpec);
  if (options.record) model = recordModel(model, options.record);
  const memory = roleMemory(settings.operator.memory, role);
  const opened =
    memory === undefined ? undefined : await (await import('../open-memory-store.ts')).openRunMemory(memory);
  try {
    return await runWith(root, { options, mode, out, settings, modelSpec, model, memory: opened?.memory, role });
  } finally {
    await opened?.close();
  }
}

type RunInputs = {
  options: RunCommandOptions;
  mode: 'start' | 'resume';
  out: Output;
  settings: RunSettings;
  modelSpec: string;
  model: LanguageModelV4;
  memory: RunnerOptions['memory'];
  role: Role | undefined;
};

async function runWith(root: string, { options, mode, out, settings, modelSpec, model, memory, role }: RunInputs) {
  const runner = createRunner({
    model,
    tools: (taskPaths) => roleTools(cliTaskTools(taskPaths, settings), role),
    ...(role ? { persona: role.persona } : {}),
    policy: operatorPolicy(settings),
    warnings: operatorWarnings(settings),
    ...(options.price?.length ? { catalog: extendCatalog(priceEntries(options.price)) } : {}),
    ...(options.approvals ? { approvals: options.approvals } : {}),
    ...promptOptions(options, settings.operator.prompts),
    ...(memory ? { memory } : {}),
    ...(options.logFile ? { logger: cliLogger(options.logFile, { component: 'runner', name: 'agency-run' }) } : {}),
  });
  const view = createProgressView(
    out,
    root,
    {
      ...(options.maxCost ? { maxCostUsd: options.maxCost } : {}),
      ...(options.maxTotalTokens ? { maxTotalTokens: options.maxTotalTokens } : {}),
    },
    { approvalsByHand: options.approvals !== 'auto' },
  );
  const unsubscribe = runner.subscribe((frame) =>
    options.json ? out.write(`${JSON.stringify(frame)}\n`) : view.onFrame(frame),
  );
  const spec = taskSpecFor(modelSpec, options, settings);
  let handle: TaskHandle;
  try {
    handle =
      mode === 'start'
        ? await runner.startTask(root, spec)
        : await runner.resume(root, { budgets: budgetsFor(options), by: process.env.USER ?? 'cli' });
  } catch (error) {
    unsubscribe();
    return exitCodeForFinishedRun(error, root, out);
  }
  // The first Ctrl-C stops at the next step boundary; a second one quits at once.
  const removeSignalHandlers = stopOnSignals(out, runStopNotice(), () => runner.stop(handle, 'cancelled'));
  try {
    const result = await runner.run(handle, { view: options.view ?? 'summary' });
    view.close();
    out.write(options.json ? `${JSON.stringify({ result })}\n` : formatResult(result, out));
    return exitCodeFor(result.finishReason);
  } finally {
    unsubscribe();
    removeSignalHandlers();
  }
}
