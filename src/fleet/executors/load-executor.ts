import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { AgencyRoot } from '../../config/agency-root.ts';
import type { WorkerConfig } from '../../config/worker-config.ts';
import { AgencyError, errorMessage } from '../../core/errors.ts';
import type { Logger } from '../../obs/logger.ts';
import type { Policy } from '../../policy/create-policy.ts';
import type { ExecutorKind } from '../api/worker-schemas.ts';
import type { Executor } from './executor.ts';

/** What a worker gives an executor when it creates it, once, at start-up. */
export type ExecutorSetup = {
  /** The worker's config: its default model, `max_turns`, `sandbox` (network, extra paths) and the rest. */
  config: WorkerConfig;
  root: AgencyRoot;
  /** `<instance>/home`, the HOME of the executor's processes, so sessions and settings of workers never mix. */
  home: string;
  /** The worker's own environment, for finding binaries (`CLAUDE_BIN`, `PATH`); never passed on whole. */
  hostEnv: Readonly<Record<string, string | undefined>>;
  logger: Logger;
  /** The operator's rules for a governed run in this process (the manager's); `agency worker` passes them. */
  governance?: RunGovernance | undefined;
};

/** What an operator allows a governed run: its policy and warnings, and what its tools may reach. */
export type RunRules = {
  policy: Policy;
  /** Journaled when the run starts or resumes (a permissive policy, no sandbox). */
  warnings: string[];
  /** Tools whose every call needs an approval. */
  requireTools: string[];
  /** Hosts the network tools may reach without approval. */
  allow: string[];
  offline: boolean;
  /** The operator config file the rules were read from (it may not exist: then the defaults apply). */
  configFile?: string | undefined;
};

/**
 * The rules for the governed run in the task root `root`, from the operator's config (`config`, else
 * `AGENCY_CONFIG`, else the default file) and policy, narrowed by the task's `task/agency.json`, as `agency run`
 * reads them.
 */
export type RunGovernance = (
  root: string,
  flags: { config?: string | undefined; policy?: 'default' | 'strict' | 'permissive' | undefined },
) => Promise<RunRules>;

/** What an executor's module exports: `src/fleet/executors/<kind>/index.ts`. */
export type ExecutorModule = {
  createExecutor(setup: ExecutorSetup): Executor | Promise<Executor>;
};

// Sources run as .ts in a checkout and as .js from dist/; a computed specifier is not rewritten by tsc.
const EXTENSION = import.meta.url.endsWith('.ts') ? 'ts' : 'js';

/**
 * Loads the executor a worker's config names, from `./<kind>/index` (each executor is imported only by the workers
 * that run it). `module` replaces that file: tests substitute a scripted executor with it (the
 * `AGENCY_WORKER_TEST_EXECUTOR` hook of `agency worker`).
 *
 * @throws AgencyError `invalid_config` when the module is missing or exports no `createExecutor`.
 */
export async function loadExecutor(
  kind: ExecutorKind,
  setup: ExecutorSetup,
  { module }: { module?: string } = {},
): Promise<Executor> {
  const specifier = module
    ? pathToFileURL(resolve(module)).href
    : new URL(`./${kind}/index.${EXTENSION}`, import.meta.url).href;
  let loaded: Partial<ExecutorModule>;
  try {
    loaded = (await import(specifier)) as Partial<ExecutorModule>;
  } catch (cause) {
    throw new AgencyError(
      'invalid_config',
      `executor "${kind}" cannot be loaded from ${specifier}: ${errorMessage(cause)}`,
      { details: { field: 'executor', module: specifier }, cause },
    );
  }
  if (typeof loaded.createExecutor !== 'function')
    throw new AgencyError('invalid_config', `${specifier} exports no createExecutor(setup) function`, {
      details: { field: 'executor', module: specifier },
    });
  return loaded.createExecutor(setup);
}
