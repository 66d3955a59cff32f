import { basename, dirname, resolve } from 'node:path';
import { z } from 'zod';
import { directorConfigBaseSchema, type DirectorConfigBase } from '../../../config/director-config.ts';
import { checkDatabaseSecret } from '../../../config/database-key.ts';
import { durationSchema } from '../../../config/duration.ts';
import {
  absolutePathSchema,
  checkCredentialsAndEnv,
  portSchema,
  type WorkerConfig,
  workerConfigFileSchema,
} from '../../../config/worker-config.ts';
import { readYamlConfig } from '../../../config/yaml-file.ts';

const worker = workerConfigFileSchema.shape;

const budgetsSchema = z
  .object({
    /** The most model calls of one task's run. */
    max_iterations: z.int({ error: 'must be a whole number of model calls, e.g. 60' }).min(1).max(100_000).optional(),
    /** The most US dollars one task's run may spend (its model needs a price). */
    max_cost_usd: z.number({ error: 'must be a number of dollars, e.g. 2.5' }).positive().optional(),
    /** The most tokens one task's run may spend. */
    max_total_tokens: z.int({ error: 'must be a whole number of tokens' }).min(1).optional(),
    /** The most wall-clock time one task's run may take, across resumes. */
    max_time: durationSchema({ min: 1_000, max: 7 * 86_400_000 }).optional(),
  })
  .strict();

/** The manager director's `config.yaml` (`directors/<name>/config.yaml`, `type: manager`). docs/directors.md has it. */
export const managerConfigFileSchema = z
  .object(
    {
      ...directorConfigBaseSchema.shape,
      type: z.literal('manager', { error: 'must be manager for a manager director' }),
      port: portSchema,
      bind: worker.bind,
      /** The model the manager thinks with; a task may ask for another. */
      model: worker.model,
      /** How long one task (a goal) may run, delegations included. @default '2h' */
      timeout: durationSchema({ min: 1_000, max: 7 * 86_400_000 }).default(2 * 3_600_000),
      /** `file`: plans and gated calls wait for `agency approve`; `auto`: approved at once, both files written. */
      approvals: z.enum(['file', 'auto'], { error: 'must be file or auto' }).default('file'),
      /** The operator policy of its runs. @default the operator config's, else `default` */
      policy: z
        .enum(['default', 'strict', 'permissive'], { error: 'must be default, strict or permissive' })
        .optional(),
      /** The operator config file of its runs (network allowlist, policy, require_tools). @default none */
      operator_config: absolutePathSchema.optional(),
      budgets: budgetsSchema.default({}),
      sandbox: z
        .object({
          /** Gives the manager the network tools (`http_fetch`…), held to the operator's allowlist. @default false */
          network: z.boolean({ error: 'must be true or false' }).default(false),
          /** Host paths the manager may read; every workdir it delegates must lie within one of them. */
          read_only_paths: z.array(absolutePathSchema).max(64).default([]),
        })
        .strict()
        .default({ network: false, read_only_paths: [] }),
      /** How long a delegation waits for an idle worker before it fails with `agent_busy`. @default '1m' */
      wait_for_worker: durationSchema({ min: 0, max: 86_400_000 }).default(60_000),
      session_dir: worker.session_dir,
      credentials: worker.credentials,
      env: worker.env,
      log_level: worker.log_level,
      history_limit: worker.history_limit,
    },
    { error: 'must be a map of fields, e.g. "type: manager", "name: manager" and "port: 9100" on their own lines' },
  )
  .strict()
  .superRefine(checkCredentialsAndEnv);

/** What the manager's runs are held to, besides what any worker has. */
export type ManagerSettings = {
  /** The config file, which the manager's runs read again inside the sandbox. */
  file: string;
  name: string;
  discovery: DirectorConfigBase['discovery'];
  /** `database:`: the fleet's PostgreSQL, where delegations are queued (`AGENCY_DATABASE_URL` wins). */
  database: string | undefined;
  /** Labels every delegated task requires of its worker (queue mode). */
  labels: string[];
  approvals: 'file' | 'auto';
  policy: 'default' | 'strict' | 'permissive' | undefined;
  operatorConfig: string | undefined;
  budgets: { maxIterations?: number; maxCostUsd?: number; maxTotalTokens?: number; maxTimeMs?: number };
  /** Whether its runs have the network tools. */
  network: boolean;
  /** Where delegated workdirs may lie: the manager reads them, never writes them. */
  readOnlyPaths: string[];
  waitForWorkerMs: number;
};

/** A manager's config: the worker daemon that hosts it (executor `manager`), and the manager's own settings. */
export type ManagerConfig = { worker: WorkerConfig; manager: ManagerSettings };

/**
 * Reads and checks a manager director's `config.yaml`.
 *
 * @throws AgencyError `invalid_config` naming the file, each bad field's line, and the fix.
 */
export async function loadManagerConfig(file: string): Promise<ManagerConfig> {
  const absolute = resolve(file);
  const raw = await readYamlConfig(
    absolute,
    managerConfigFileSchema,
    'Create it with at least a type, a name, a port and a model, e.g.\n  type: manager\n  name: manager\n  port: 9100\n  model: anthropic:claude-sonnet-4-5\n(docs/directors.md)',
  );
  await checkDatabaseSecret(absolute, raw.database);
  return resolveManagerConfig(raw, absolute);
}

/** Resolves a parsed manager config (see {@link loadManagerConfig}). */
export function resolveManagerConfig(raw: z.output<typeof managerConfigFileSchema>, file: string): ManagerConfig {
  const instanceDir = dirname(file);
  const { budgets } = raw;
  return {
    worker: {
      file,
      instanceDir,
      name: raw.name ?? basename(instanceDir),
      port: raw.port,
      bind: raw.bind,
      executor: 'manager',
      model: raw.model,
      timeoutMs: raw.timeout,
      maxTurns: undefined,
      sessionDir: resolve(instanceDir, raw.session_dir),
      // The manager reaches its model and its workers over the host's network.
      sandbox: { network: true, readOnlyPaths: raw.sandbox.read_only_paths, readWritePaths: [] },
      credentials: raw.credentials,
      env: raw.env,
      logLevel: raw.log_level,
      historyLimit: raw.history_limit,
      labels: [],
    },
    manager: {
      file,
      name: raw.name,
      database: raw.database,
      labels: raw.labels,
      discovery: raw.discovery,
      approvals: raw.approvals,
      policy: raw.policy,
      operatorConfig: raw.operator_config,
      budgets: {
        ...(budgets.max_iterations ? { maxIterations: budgets.max_iterations } : {}),
        ...(budgets.max_cost_usd ? { maxCostUsd: budgets.max_cost_usd } : {}),
        ...(budgets.max_total_tokens ? { maxTotalTokens: budgets.max_total_tokens } : {}),
        ...(budgets.max_time ? { maxTimeMs: budgets.max_time } : {}),
      },
      network: raw.sandbox.network,
      readOnlyPaths: raw.sandbox.read_only_paths,
      waitForWorkerMs: raw.wait_for_worker,
    },
  };
}
