import { readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { z } from 'zod';
import { errnoCode } from '../core/errno.ts';
import { AgencyError, errorMessage } from '../core/errors.ts';
import { OPERATOR_POLICIES, type OperatorPolicyName } from '../policy/presets.ts';
import { parseContractFile } from '../task/task-spec.ts';
import type { Allowlist } from '../tools/guards/network-allowlist.ts';
import { type MemoryStoreUrl, parseMemoryStoreUrl } from './memory-store-url.ts';
import { parseAllowEntry } from './operator-network.ts';
import { type OperatorPrompts, operatorPromptsOf, promptsConfigSchema } from './prompt-flags.ts';

/**
 * The operator's config file (`--config`, `AGENCY_CONFIG`, or `~/.config/agency/config.json`): isolation, network
 * reach and policy. A task's `task/agency.json` may only narrow these.
 */
export const operatorConfigSchema = z
  .object({
    /** @default 'default' */
    policy: z.enum(OPERATOR_POLICIES).optional(),
    /** `none` runs commands unsandboxed, journaled as a warning. @default 'bwrap' */
    sandbox: z.enum(['bwrap', 'none']).optional(),
    /** Hosts, `*.domain` suffixes, CIDRs or `host:port` the network tools may reach without approval. */
    network: z
      .object({ allow: z.array(z.string().min(1)) })
      .strict()
      .optional(),
    /** Leaves the network tools out. @default false */
    offline: z.boolean().optional(),
    /** Tools whose every call needs approval, in every run. @default [] */
    require_tools: z.array(z.string().min(1)).optional(),
    /** Memory that outlives a run: the store (`sqlite:<path>`, relative to this file, `postgres://…`, `redis://…` or `zep://…`) and the shared channels. */
    memory: z
      .object({
        store: z.string().min(1),
        /** The agent channel: learnings of every run go here, and later runs recall them. @default 'agency' */
        agent: z.string().min(1).optional(),
        org: z.string().min(1).optional(),
        team: z.string().min(1).optional(),
        project: z.string().min(1).optional(),
      })
      .strict()
      .optional(),
    /** The runner's prompts: a folder of versions over the built-in ones (relative to this file) and pins. */
    prompts: promptsConfigSchema.optional(),
  })
  .strict();

/** The memory of CLI runs: the store and the channels every run reads and writes (with its user and task). */
export type OperatorMemory = {
  url: MemoryStoreUrl;
  channels: { agent: string } & Partial<Record<'org' | 'team' | 'project', string>>;
};

/** What the operator allows a CLI run, from the config file and the flags. */
export type OperatorSettings = {
  policy: OperatorPolicyName;
  sandbox: 'bwrap' | 'none';
  /** The operator's network allowlist, as written. */
  allow: string[];
  allowlist: Allowlist;
  offline: boolean;
  requireTools: string[];
  /** Memory that outlives a run; none when neither the config file nor `--memory` names a store. */
  memory: OperatorMemory | undefined;
  /** The config file's `prompts`, for `promptOptions` to put the flags over; none when the file has no such key. */
  prompts?: OperatorPrompts;
  /** Where the operator sets these (the config file read, or where one would be read), for error messages. */
  where: string;
};

/** The flags of `agency run` and `agency resume` that override the config file. */
export type OperatorFlags = {
  config?: string;
  policy?: OperatorPolicyName;
  sandbox?: 'bwrap' | 'none';
  allowHost?: string[];
  /** A memory store (`sqlite:<path>`, relative to the working folder, `postgres://…`, `redis://…` or `zep://…`), over the config file's `memory.store`. */
  memory?: string;
};

/** The config file read when neither `--config` nor `AGENCY_CONFIG` names one. */
export function defaultConfigPath(env: NodeJS.ProcessEnv = process.env): string {
  return join(env.XDG_CONFIG_HOME || join(homedir(), '.config'), 'agency', 'config.json');
}

/**
 * The operator's settings: the config file named by `--config`, else `AGENCY_CONFIG`, else
 * `~/.config/agency/config.json` if it exists, with the flags on top (`--allow-host` adds to `network.allow`).
 *
 * @throws AgencyError `invalid_config` naming the file (or flag) and each bad field, or a named file that is missing.
 * @example
 * const operator = await readOperatorSettings({ policy: 'strict', allowHost: ['docs.example.com'] });
 */
export async function readOperatorSettings(
  flags: OperatorFlags = {},
  env: NodeJS.ProcessEnv = process.env,
): Promise<OperatorSettings> {
  const named = flags.config ?? (env.AGENCY_CONFIG || undefined);
  const file = named ?? defaultConfigPath(env);
  const config = await readConfigFile(file, named !== undefined);
  const allow = [...(config.network?.allow ?? []), ...(flags.allowHost ?? [])];
  return {
    policy: flags.policy ?? config.policy ?? 'default',
    sandbox: flags.sandbox ?? config.sandbox ?? 'bwrap',
    allow,
    allowlist: allowlistOf(allow, config.network?.allow.length ?? 0, file),
    offline: config.offline ?? false,
    requireTools: config.require_tools ?? [],
    memory: memoryOf(config.memory, flags.memory, file),
    ...(config.prompts ? { prompts: operatorPromptsOf(config.prompts, file) } : {}),
    where: file,
  };
}

function memoryOf(
  config: z.infer<typeof operatorConfigSchema>['memory'],
  flag: string | undefined,
  file: string,
): OperatorMemory | undefined {
  const { store, agent = 'agency', ...shared } = config ?? {};
  const url =
    flag !== undefined
      ? parseMemoryStoreUrl(flag, '--memory', process.cwd())
      : store !== undefined
        ? parseMemoryStoreUrl(store, `${file}: "memory.store"`, dirname(file))
        : undefined;
  const named = Object.entries(shared).filter((pair): pair is [string, string] => pair[1] !== undefined);
  return url === undefined ? undefined : { url, channels: { agent, ...Object.fromEntries(named) } };
}

async function readConfigFile(file: string, required: boolean): Promise<z.infer<typeof operatorConfigSchema>> {
  const raw = await readFile(file, 'utf8').catch((cause: unknown) => {
    if (errnoCode(cause) === 'ENOENT' && !required) return undefined;
    throw new AgencyError(
      'invalid_config',
      `${file}: the operator config file cannot be read (${errorMessage(cause)})`,
      {
        cause,
        details: { file },
      },
    );
  });
  return raw === undefined ? {} : parseContractFile(file, raw, operatorConfigSchema, 'invalid_config');
}

// Entries before `fromFile` come from the file, the rest from --allow-host; an error names where the bad one is.
function allowlistOf(allow: readonly string[], fromFile: number, file: string): Allowlist {
  return {
    entries: allow.map((entry, index) => {
      const parsed = parseAllowEntry(entry);
      if (!('problem' in parsed)) return parsed;
      const where = index < fromFile ? `${file}: "network.allow.${index}"` : `--allow-host "${entry}"`;
      throw new AgencyError('invalid_config', `${where}: ${parsed.problem}`, { details: { file } });
    }),
  };
}
