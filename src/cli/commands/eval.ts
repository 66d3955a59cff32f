import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import type { LanguageModelV4 } from '@ai-sdk/provider';
import { AgencyError } from '../../core/errors.ts';
import { extendCatalog, type ModelPrice } from '../../core/model-catalog.ts';
import { priceEntries } from '../../core/price-override.ts';
import { compareReports, readEvalReport, type Regression } from '../../eval/compare.ts';
import { renderEvalHtml } from '../../eval/render-html.ts';
import type { EvalReport } from '../../eval/report.ts';
import type { CaseRunSetup } from '../../eval/run-case.ts';
import { runSuite } from '../../eval/run-suite.ts';
import { type EvalCase, loadSuite } from '../../eval/suite.ts';
import { recordModel } from '../../model/cassette/record-model.ts';
import { resolveModelOrReplay } from '../../model/cassette/resolve-or-replay.ts';
import { checkTaskFolder } from '../../task/layout.ts';
import { EXIT } from '../exit-codes.ts';
import { type OperatorSettings, readOperatorSettings } from '../operator-config.ts';
import { operatorPolicy, operatorWarnings } from '../operator-policy.ts';
import { type PromptFlags, promptOptions } from '../prompt-flags.ts';
import type { Output } from '../render.ts';
import { stopOnSignals } from '../signals.ts';
import { cliTaskTools, narrowToOperator, readTaskConfig, taskConfigPath } from '../task-config.ts';
import { formatCaseLine, formatEvalTable, formatRegressions } from './eval-table.ts';

type PromptOptions = ReturnType<typeof promptOptions>;

/** Options of `agency eval`. */
export type EvalCommandOptions = PromptFlags & {
  model?: string;
  record?: boolean;
  concurrency?: number;
  json?: string;
  html?: string;
  compare?: string;
  /** Percent. */
  threshold?: number;
  workDir?: string;
  price?: Array<[modelId: string, price: ModelPrice]>;
  config?: string;
  /** Instead of `--model` or the cassettes, a model per case (the scripted authors that recorded the shipped suite). */
  modelFor?: (evalCase: EvalCase) => LanguageModelV4;
};

/** `agency eval <suite>`: runs every case, prints the table, writes the reports, compares. Exit codes: docs/cli.md. */
export async function evalCommand(suiteDir: string, options: EvalCommandOptions, out: Output): Promise<number> {
  if (options.record && !options.model && !options.modelFor)
    throw Object.assign(new Error('--record needs --model: the model whose answers to record'), {
      exitCode: EXIT.usage,
    });
  const suite = await loadSuite(suiteDir);
  // Read before anything runs, so a bad file to compare with costs no run.
  const previous = options.compare ? await readEvalReport(options.compare) : undefined;
  const operator = await readOperatorSettings(options.config ? { config: options.config } : {});
  // Checked once, before any case runs: a bad folder or pin is one usage error, not a failure of every case.
  const prompts = promptOptions(options, operator.prompts);
  // A bad spec or a missing API key is a usage error, said once, not a failure of every case.
  if (options.model) resolveModelOrReplay(options.model);
  const workDir = options.workDir ? resolve(options.workDir) : await mkdtemp(join(tmpdir(), 'agency-eval-'));
  await mkdir(workDir, { recursive: true });
  const controller = new AbortController();
  const notice = '\nStopping the eval (press Ctrl-C again to quit at once); the report will be partial…\n';
  const removeSignalHandlers = stopOnSignals(out, notice, () => controller.abort());
  const modelName = options.model ?? (options.modelFor ? 'scripted' : 'replay');
  out.write(`Eval ${relative(process.cwd(), suite.dir) || '.'}: ${suite.cases.length} case(s), model ${modelName}\n`);
  let report: EvalReport;
  try {
    report = await runSuite(suite, {
      workDir,
      concurrency: options.concurrency ?? 2,
      signal: controller.signal,
      names: { suite: relative(process.cwd(), suite.dir) || '.', model: modelName },
      onCase: (item) => out.write(formatCaseLine(item, out)),
      setup: caseSetup(operator, prompts, options),
    });
  } finally {
    removeSignalHandlers();
    if (!options.workDir) await rm(workDir, { recursive: true, force: true });
  }
  const regressions = previous ? compareReports(previous, report, { threshold: (options.threshold ?? 10) / 100 }) : [];
  await writeReports(report, regressions, options, out);
  out.write(formatEvalTable(report, out));
  if (previous) out.write(formatRegressions(regressions, options.compare ?? '', out));
  return exitCodeOf(report, regressions);
}

// Each case's copy runs as `agency run` would run it: the operator's settings narrowed by the task's agency.json,
// and the prompt versions of the config's `prompts` and the flags. The operator's memory store is not opened: a case
// remembers nothing of another, or of an earlier eval.
function caseSetup(operator: OperatorSettings, prompts: PromptOptions, options: EvalCommandOptions) {
  return async (evalCase: EvalCase, root: string): Promise<CaseRunSetup> => {
    const paths = await checkTaskFolder(root);
    const settings = narrowToOperator(operator, await readTaskConfig(paths), taskConfigPath(paths));
    return {
      model: modelOf(evalCase, options),
      spec: {
        model: options.model ?? `replay:${evalCase.cassette}`,
        ...(settings.requireTools.length > 0 ? { approvals: { requireTools: settings.requireTools } } : {}),
      },
      runner: {
        tools: (taskPaths) => cliTaskTools(taskPaths, settings),
        policy: operatorPolicy(settings),
        warnings: operatorWarnings(settings),
        ...(options.price?.length ? { catalog: extendCatalog(priceEntries(options.price)) } : {}),
        ...prompts,
      },
    };
  };
}

function modelOf(evalCase: EvalCase, options: EvalCommandOptions): LanguageModelV4 {
  let model: LanguageModelV4;
  if (options.modelFor) model = options.modelFor(evalCase);
  else if (options.model) model = resolveModelOrReplay(options.model);
  else if (evalCase.hasCassette) model = resolveModelOrReplay(`replay:${evalCase.cassette}`);
  else
    throw new AgencyError(
      'cassette_not_found',
      `no cassette at ${evalCase.cassette}: record one with --model <spec> --record, or pass --model to run live`,
    );
  return options.record ? recordModel(model, evalCase.cassette) : model;
}

async function writeReports(report: EvalReport, regressions: Regression[], options: EvalCommandOptions, out: Output) {
  if (options.json) {
    await mkdir(dirname(options.json), { recursive: true });
    await writeFile(options.json, `${JSON.stringify(report, null, 2)}\n`);
    out.write(`Wrote ${options.json}${report.interrupted ? ' (partial: the eval was interrupted)' : ''}\n`);
  }
  if (options.html) {
    await mkdir(dirname(options.html), { recursive: true });
    await writeFile(options.html, renderEvalHtml(report, regressions));
    out.write(`Wrote ${options.html}${report.interrupted ? ' (partial: the eval was interrupted)' : ''}\n`);
  }
}

// Interrupted beats a regression, which beats a failed case.
function exitCodeOf(report: EvalReport, regressions: Regression[]): number {
  if (report.interrupted) return EXIT.stopped;
  if (regressions.length > 0) return EXIT.regression;
  return report.totals.failed > 0 ? EXIT.failed : EXIT.ok;
}
