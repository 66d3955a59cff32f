import { basename, dirname, isAbsolute, join, resolve } from 'node:path';
import { z } from 'zod';
import type { ExecutorKind } from '../fleet/api/worker-schemas.ts';
import type { AgencyRoot } from './agency-root.ts';
import { checkDatabaseSecret, databaseKeySchema } from './database-key.ts';
import { durationSchema } from './duration.ts';
import { labelsSchema } from './labels.ts';
import { roleNameSchema } from '../roles/role.ts';
import { readYamlConfig } from './yaml-file.ts';

/** The log levels a config may set. */
export const CONFIG_LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/** The executors a worker's config may name; the manager's runs only as a director. */
export const WORKER_EXECUTORS = ['builtin', 'claude', 'codex'] as const;

/** An instance's name: the directory under `agents/` or `directors/`. */
export const instanceNameSchema = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9_-]{0,62}$/, 'must be letters, digits, "-" and "_" (up to 63), e.g. agent-01');

/** A TCP port in a config. */
export const portSchema = z
  .int({ error: 'must be a port number from 1 to 65535, e.g. 9000' })
  .min(1, 'must be a port number from 1 to 65535, e.g. 9000')
  .max(65_535, 'must be a port number from 1 to 65535, e.g. 9000');

/** The address a component listens on; anything but loopback requires a bearer token. */
export const bindSchema = z.union([z.ipv4(), z.ipv6(), z.literal('localhost')], {
  error: 'must be an IP address to listen on, e.g. 127.0.0.1 (the default) or 0.0.0.0',
});

/** A log level in a config. */
export const logLevelSchema = z.enum(CONFIG_LOG_LEVELS, { error: `must be one of ${CONFIG_LOG_LEVELS.join(', ')}` });

const envName = z
  .string()
  .regex(/^[A-Z_][A-Z0-9_]{0,63}$/, 'must be an environment variable name: A-Z, 0-9 and "_", e.g. ANTHROPIC_API_KEY');
const credentialName = z
  .string()
  .regex(
    /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/,
    'must be the name of a file in AGENCY_ROOT/credentials/ (letters, digits, ".", "-", "_"), e.g. claude-token',
  );
/** An absolute host path in a config. */
export const absolutePathSchema = z
  .string({ error: 'must be an absolute path, e.g. /opt/tools' })
  .refine((path) => isAbsolute(path) && !path.includes('\0'), 'must be an absolute path, e.g. /opt/tools');

const sandboxSchema = z
  .object({
    /** Share the host's network (executors reach their model API over it). @default true */
    network: z.boolean({ error: 'must be true or false (YAML 1.2 reads on/off and yes/no as text)' }).default(true),
    /** More host paths the executor may read. */
    read_only_paths: z.array(absolutePathSchema).max(64).default([]),
    /** More host paths the executor may write, besides its session directory. */
    read_write_paths: z.array(absolutePathSchema).max(64).default([]),
  })
  .strict();

/** A worker's `config.yaml`, as written. docs/fleet.md has the reference. */
export const workerConfigFileSchema = z
  .object(
    {
      /** @default the instance directory's name */
      name: instanceNameSchema.optional(),
      port: portSchema,
      /** @default '127.0.0.1' */
      bind: bindSchema.default('127.0.0.1'),
      executor: z.enum(WORKER_EXECUTORS, { error: `must be one of ${WORKER_EXECUTORS.join(', ')}` }),
      /** The default model; a task may ask for another. */
      model: z.string().min(1).max(200).optional(),
      /** The `builtin` executor's role, from `AGENCY_ROOT/roles/` or the built-in ones (docs/roles.md). */
      role: roleNameSchema.optional(),
      /** The default timeout of a task's run; a task may ask for another. @default '30m' */
      timeout: durationSchema({ min: 1_000, max: 86_400_000 }).default(30 * 60_000),
      /** The turns an executor may take per run. @default the executor's own */
      max_turns: z
        .int({ error: 'must be a whole number of turns, e.g. 50' })
        .min(1, 'must be at least 1')
        .max(10_000, 'must be at most 10000')
        .optional(),
      /** Where session directories go; relative to the instance directory. @default 'workspaces' */
      session_dir: z.string().min(1).default('workspaces'),
      sandbox: sandboxSchema.default({ network: true, read_only_paths: [], read_write_paths: [] }),
      /** Credential files (in AGENCY_ROOT/credentials/) → the variable the executor gets each one in. */
      credentials: z.record(credentialName, envName).default({}),
      /** More environment for the executor. */
      env: z.record(envName, z.string().max(10_000)).default({}),
      /** @default 'info' */
      log_level: logLevelSchema.default('info'),
      /** Queue mode (docs/fleet.md, "Many hosts"). */
      fleet: z
        .object({
          /** Where queue tasks' session directories go, shared by every worker that names it. @default none */
          shared_sessions: absolutePathSchema.optional(),
        })
        .strict()
        .optional(),
      /** How many finished tasks `history/` keeps. @default 100 */
      history_limit: z
        .int({ error: 'must be a whole number of records, e.g. 100' })
        .min(1, 'must be at least 1')
        .max(10_000, 'must be at most 10000')
        .default(100),
      /** The fleet's PostgreSQL (queue mode); `AGENCY_DATABASE_URL` wins over it. */
      database: databaseKeySchema.optional(),
      /** What this worker has, e.g. [gpu, linux]: in queue mode it takes tasks whose labels are all among these. */
      labels: labelsSchema.default([]),
    },
    { error: 'must be a map of fields, e.g. "port: 9000" and "executor: claude" on their own lines' },
  )
  .strict()
  .superRefine(checkCredentialsAndEnv)
  .superRefine((config, context) => {
    if (config.role !== undefined && config.executor !== 'builtin')
      context.addIssue({
        code: 'custom',
        path: ['role'],
        message: `only the builtin executor takes a role; remove it, or use "executor: builtin"`,
      });
  });

/**
 * Refuses two credentials mapped to one variable, an `env` entry that is a credential's variable, and an
 * executor endpoint (`*_BASE_URL`) that is not an http(s) URL.
 */
export function checkCredentialsAndEnv(
  config: { credentials: Record<string, string>; env: Record<string, string> },
  context: z.RefinementCtx,
): void {
  const targets = new Map<string, string>();
  for (const [file, variable] of Object.entries(config.credentials)) {
    const other = targets.get(variable);
    if (other)
      context.addIssue({
        code: 'custom',
        path: ['credentials', file],
        message: `${variable} is already the variable of credential "${other}"; give each credential its own`,
      });
    targets.set(variable, file);
  }
  for (const variable of Object.keys(config.env))
    if (targets.has(variable))
      context.addIssue({
        code: 'custom',
        path: ['env', variable],
        message: `${variable} is the variable of credential "${targets.get(variable)}"; remove it from env`,
      });
  for (const [variable, value] of Object.entries(config.env))
    if (variable.endsWith('_BASE_URL') && !isHttpUrl(value))
      context.addIssue({
        code: 'custom',
        path: ['env', variable],
        message: 'must be an http(s) URL of the model API, e.g. https://llm-proxy.internal or http://127.0.0.1:8080',
      });
}

// An executor's endpoint (`ANTHROPIC_BASE_URL`, `OPENAI_BASE_URL`): a CLI given anything else fails only at its
// first request, with a message that does not name the config.
function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'https:' || url.protocol === 'http:') && url.hostname !== '';
  } catch {
    return false;
  }
}

/** A worker's config, checked and resolved: durations in milliseconds, paths absolute, names in camelCase. */
export type WorkerConfig = {
  /** The file it was read from. */
  file: string;
  /** The instance directory: `agents/<name>/`, where `agent.log`, `history/` and by default `workspaces/` live. */
  instanceDir: string;
  name: string;
  port: number;
  bind: string;
  executor: ExecutorKind;
  model: string | undefined;
  /** The `builtin` executor's role. */
  role?: string | undefined;
  timeoutMs: number;
  maxTurns: number | undefined;
  /** Absolute: `<session_dir>/<session_id>/` is each session's directory. */
  sessionDir: string;
  sandbox: { network: boolean; readOnlyPaths: string[]; readWritePaths: string[] };
  /** Credential file name → environment variable. */
  credentials: Record<string, string>;
  env: Record<string, string>;
  logLevel: (typeof CONFIG_LOG_LEVELS)[number];
  historyLimit: number;
  /** `database:`, the fleet's PostgreSQL URL, when the config sets it. */
  database?: string | undefined;
  /** The worker's labels, sorted. */
  labels: string[];
  /** `fleet.shared_sessions` as written (checked when the worker starts): queue tasks' session directories. */
  sharedSessions?: string | undefined;
};

/** The config file of the worker `name` under the data root: `agents/<name>/config.yaml`. */
export function workerConfigPath(root: AgencyRoot, name: string): string {
  const parsed = instanceNameSchema.safeParse(name);
  if (!parsed.success) throw new TypeError(`worker name "${name}" ${parsed.error.issues[0]!.message}`);
  return join(root.agents, name, 'config.yaml');
}

/**
 * Reads and checks a worker's `config.yaml`.
 *
 * @throws AgencyError `invalid_config` naming the file, each bad field's line, and the fix.
 */
export async function loadWorkerConfig(file: string): Promise<WorkerConfig> {
  const absolute = resolve(file);
  const raw = await readYamlConfig(
    absolute,
    workerConfigFileSchema,
    'Create it with at least a port and an executor, e.g.\n  port: 9000\n  executor: claude\n(docs/fleet.md has every field)',
  );
  await checkDatabaseSecret(absolute, raw.database);
  return resolveWorkerConfig(raw, absolute);
}

/** Resolves a parsed config file (see {@link loadWorkerConfig}). */
export function resolveWorkerConfig(raw: z.output<typeof workerConfigFileSchema>, file: string): WorkerConfig {
  const instanceDir = dirname(file);
  return {
    file,
    instanceDir,
    name: raw.name ?? basename(instanceDir),
    port: raw.port,
    bind: raw.bind,
    executor: raw.executor,
    model: raw.model,
    role: raw.role,
    timeoutMs: raw.timeout,
    maxTurns: raw.max_turns,
    sessionDir: resolve(instanceDir, raw.session_dir),
    sandbox: {
      network: raw.sandbox.network,
      readOnlyPaths: raw.sandbox.read_only_paths,
      readWritePaths: raw.sandbox.read_write_paths,
    },
    credentials: raw.credentials,
    env: raw.env,
    logLevel: raw.log_level,
    historyLimit: raw.history_limit,
    database: raw.database,
    labels: raw.labels,
    sharedSessions: raw.fleet?.shared_sessions,
  };
}
