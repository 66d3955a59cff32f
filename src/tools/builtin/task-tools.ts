import { mkdirSync } from 'node:fs';
/** The folders of a governed task that the tools are scoped to (a subset of the runner's `TaskPaths`). */
export type TaskToolPaths = { task: string; progress: string; artifacts: string };
import type { Tool } from '../define-tool.ts';
import { type BuiltinToolsOptions, builtinTools } from './builtin-tools.ts';
import type { NetworkToolOptions } from './network-options.ts';
import type { SandboxExecToolOptions } from './sandbox-exec.ts';
import type { TestRunnerToolOptions } from './test-runner.ts';

/** Options for {@link taskTools}: what a governed task's tools may reach besides its own folder. */
export type TaskToolsOptions = Pick<BuiltinToolsOptions, 'sandbox' | 'kv' | 'sql' | 'limits'> & {
  /**
   * The network tools' policy. Public addresses are always reachable; `policy.allow` opens private or local ones.
   * `false` leaves out `http_fetch`, `http_post` and `links_check`. @default {}
   */
  network?: NetworkToolOptions | false;
  /** `sandbox_exec`'s limits and environment; its workdir is always `progress/artifacts/`. `false` leaves it out. */
  exec?: Omit<SandboxExecToolOptions, 'sandbox' | 'workdir'> | false;
  /** Includes `test_runner`, run in `progress/artifacts/`. */
  testRunner?: Omit<TestRunnerToolOptions, 'sandbox' | 'workdir'>;
};

/**
 * The parts of `progress/` that `taskTools`' `fs_write` may write: the deliverables under `artifacts/` and the notes
 * files. Everything else there (spec, state, journal, plan, approvals, verify reports, step records, `STOP`, `.lock`)
 * belongs to the runner. The path guard checks this on real paths, so no symlink planted in `artifacts/` reaches them.
 */
export const TASK_WRITABLE_PATHS: readonly string[] = Object.freeze([
  'artifacts',
  'notes.md',
  'todo.md',
  'findings.md',
  'sources.jsonl',
]);

/**
 * The built-in tools scoped to a governed task folder: `fs_read`, `file_glob` and `json_validate` read `task/` and
 * `progress/` (addressed as `task/…` and `progress/…`); `fs_write` writes only `progress/artifacts/` and the notes
 * files ({@link TASK_WRITABLE_PATHS}), without fsyncs of its own (the runner fsyncs what tools wrote at once, before
 * it journals their results); `sandbox_exec` and `test_runner` run in `progress/artifacts/`, which is created
 * here and is the only folder they can write; the network tools follow `options.network`.
 *
 * @example
 * const runner = createRunner({
 *   model: 'openai:gpt-4o',
 *   tools: (paths) => taskTools(paths, { network: { policy: { allow: ['api.github.com'] } } }),
 * });
 */
export function taskTools(paths: TaskToolPaths, options: TaskToolsOptions = {}): Tool[] {
  const { network = {}, exec = {}, testRunner, ...rest } = options;
  mkdirSync(paths.artifacts, { recursive: true });
  const task = { label: 'task', path: paths.task };
  const progress = { label: 'progress', path: paths.progress };
  return builtinTools({
    ...rest,
    // The runner makes what fs_write wrote durable in one batch before it journals the call's result.
    limits: { ...rest.limits, fs_write: { durable: false, ...rest.limits?.fs_write } },
    readRoots: [task, progress],
    writeRoots: [{ ...progress, writable: TASK_WRITABLE_PATHS }],
    ...(network === false ? {} : { network }),
    ...(exec === false ? {} : { exec: { ...exec, workdir: paths.artifacts } }),
    ...(testRunner ? { testRunner: { ...testRunner, workdir: paths.artifacts } } : {}),
  });
}
