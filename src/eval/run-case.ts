import { cp, readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { LanguageModelV4 } from '@ai-sdk/provider';
import { errorMessage } from '../core/errors.ts';
import type { DoTaskResult } from '../task/result.ts';
import { createRunner, type RunnerOptions } from '../task/runner.ts';
import type { TaskSpec } from '../task/task-spec.ts';
import { judgeCase } from './judge.ts';
import { measureOverhead, type OverheadSources } from './overhead.ts';
import type { CaseReport } from './report.ts';
import { meterRequests } from './request-meter.ts';
import type { EvalCase } from './suite.ts';

/** How one case runs: the runner's options but its model, and the spec it starts with. */
export type CaseRunSetup = {
  model: LanguageModelV4;
  runner: Omit<RunnerOptions, 'model' | 'approvals'>;
  spec: TaskSpec;
};

/** What {@link runCase} needs besides the case. */
export type RunCaseOptions = {
  /** A folder for this run's copy of the task root; emptied first. */
  root: string;
  /** The model, runner options and spec for the copy (read after the copy is made, e.g. its `task/agency.json`). */
  setup: (root: string) => Promise<CaseRunSetup>;
  signal?: AbortSignal;
};

// Input files past this size are not read to tell them apart in the prompts; their text counts as agency's.
const MAX_SOURCE_BYTES = 1024 * 1024;

/**
 * Runs one case in a fresh copy of its task root (the suite is only read), approvals granted automatically, and
 * judges it against its `expect.yaml`. Never rejects: a failure to set up or run is the case's `error`.
 */
export async function runCase(evalCase: EvalCase, { root, setup, signal }: RunCaseOptions): Promise<CaseReport> {
  const started = performance.now();
  let result: DoTaskResult | undefined;
  let metered: ReturnType<typeof meterRequests> | undefined;
  let approvals = 0;
  try {
    await rm(root, { recursive: true, force: true });
    await cp(join(evalCase.dir, 'task'), join(root, 'task'), { recursive: true, dereference: true });
    const { model, runner: options, spec } = await setup(root);
    metered = meterRequests(model);
    const runner = createRunner({ ...options, model: metered.model, approvals: 'auto' });
    runner.subscribe((frame) => {
      if (frame.type === 'approval.requested') approvals++;
    });
    result = await runner.doTask(
      root,
      { ...spec, approvals: { ...spec.approvals, mode: 'auto' } },
      {
        view: 'full',
        ...(signal ? { signal } : {}),
      },
    );
  } catch (error) {
    return judgeCase(evalCase, {
      root,
      wallMs: performance.now() - started,
      approvals,
      calls: metered?.calls.length ?? 0,
      error: `${evalCase.name}: ${errorMessage(error)}`,
    });
  }
  const overhead = measureOverhead(metered.calls, await sourcesOf(root));
  return judgeCase(evalCase, {
    root,
    result,
    wallMs: performance.now() - started,
    approvals,
    calls: metered.calls.length,
    overhead,
    ...(result.error ? { error: `${evalCase.name}: ${result.error.message}` } : {}),
  });
}

// The brief and the text of every other input file of the copy, to attribute the prompts' lines to.
async function sourcesOf(root: string): Promise<OverheadSources> {
  const task = join(root, 'task');
  const brief = await readFile(join(task, 'brief.md'), 'utf8');
  const inputs: string[] = [];
  for (const entry of await readdir(task, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || (entry.parentPath === task && entry.name === 'brief.md')) continue;
    const text = await readFile(join(entry.parentPath, entry.name)).catch(() => undefined);
    if (text && text.length <= MAX_SOURCE_BYTES) inputs.push(text.toString('utf8'));
  }
  return { brief, inputs };
}
