import { statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { z } from 'zod';
import { AgencyError } from '../core/errors.ts';
import { BUILTIN_PROMPT_VARIABLES, BUILTIN_PROMPTS } from '../prompts/builtin-prompts.ts';
import { createFilePromptStore } from '../prompts/file/file-prompt-store.ts';
import { PROMPT_ID } from '../prompts/prompt-checks.ts';
import type { PromptPins } from '../prompts/prompt-set.ts';
import type { RunnerOptions } from '../task/runner-options.ts';

/** `--prompts <dir>` and `--prompt <id@version>` of `agency run`, `agency resume`, `agency serve` and `agency mcp`. */
export type PromptFlags = {
  /** A folder of prompt versions (`<id>/<version>.md`) laid over the built-in prompts. */
  prompts?: string;
  /** Versions to use instead of the latest, as `id@version`. */
  prompt?: string[];
};

/** The `prompts` key of the operator config: a folder of versions (relative to the config file) and pins. */
export const promptsConfigSchema = z
  .object({
    /** A folder of prompt versions laid over the built-in prompts; `--prompts` replaces it. */
    dir: z.string().min(1).optional(),
    /** Versions to use instead of the latest, as `id@version`; `--prompt` replaces the pin of its id. */
    pins: z.array(z.string()).optional(),
  })
  .strict();

/** The operator config's `prompts`, read: the folder made absolute, the pins parsed, and the file, for errors. */
export type OperatorPrompts = {
  /** Absolute; checked to be a folder when it is used, so a flag can replace a folder that is gone. */
  dir?: string;
  pins: PromptPins;
  /** The config file they were read from. */
  file: string;
};

/** The ids of agency's own prompts, the only ones a run renders and so the only ones a pin can name. */
export const PINNABLE_PROMPT_IDS: readonly string[] = Object.keys(BUILTIN_PROMPT_VARIABLES).sort();

/**
 * Reads one pin, `id@version`, of an id agency's runs use. `where` names the flag or config field in errors.
 * @throws AgencyError `invalid_argument` saying what the value must look like, or naming the ids there are.
 */
export function parsePromptPin(
  value: string,
  where = '--prompt',
  code: 'invalid_argument' | 'invalid_config' = 'invalid_argument',
): [id: string, version: number] {
  const at = value.lastIndexOf('@');
  const id = value.slice(0, at);
  const digits = value.slice(at + 1);
  const version = Number(digits);
  if (at < 1 || !PROMPT_ID.test(id) || !/^[1-9][0-9]{0,9}$/.test(digits) || !Number.isSafeInteger(version)) {
    throw new AgencyError(
      code,
      `${where}: ${JSON.stringify(value.slice(0, 100))} is not a prompt version: write it as <id>@<version>, e.g. runner.plan@1`,
      { details: { field: where } },
    );
  }
  if (!PINNABLE_PROMPT_IDS.includes(id)) {
    throw new AgencyError(
      code,
      `${where}: "${id}" is not a prompt agency uses, so pinning it changes nothing; pin one of ${PINNABLE_PROMPT_IDS.join(', ')}`,
      { details: { field: where } },
    );
  }
  return [id, version];
}

/**
 * Reads the operator config's `prompts` (already checked against {@link promptsConfigSchema}): `dir` is taken from
 * the config file's folder, each pin must be `id@version` of a prompt agency uses, and an id is pinned once.
 * @throws AgencyError `invalid_config` naming the file and the field, e.g. `config.json: prompts.pins[1]: …`.
 */
export function operatorPromptsOf(config: z.infer<typeof promptsConfigSchema>, file: string): OperatorPrompts {
  const pins: Record<string, number> = {};
  (config.pins ?? []).forEach((value, index) => {
    const where = `${file}: prompts.pins[${index}]`;
    const [id, version] = parsePromptPin(value, where, 'invalid_config');
    if (pins[id] !== undefined) {
      throw new AgencyError(
        'invalid_config',
        `${where}: "${id}" is pinned twice (@${pins[id]} and @${version}); keep one`,
        {
          details: { file },
        },
      );
    }
    pins[id] = version;
  });
  return {
    ...(config.dir === undefined ? {} : { dir: resolve(dirname(file), config.dir) }),
    pins,
    file,
  };
}

/**
 * Refuses a prompt folder that is not a folder, so a typo never falls back to the built-in prompts unnoticed. A
 * symbolic link to a folder is followed (the operator named it); links inside the folder are the store's to refuse.
 * @throws AgencyError `code` naming `where` (the flag or the config field).
 */
export function checkPromptFolder(dir: string, where: string, code: 'invalid_argument' | 'invalid_config'): void {
  const stat = statSync(dir, { throwIfNoEntry: false });
  if (stat?.isDirectory()) return;
  throw new AgencyError(
    code,
    `${where}: ${dir} is not a folder${stat ? '' : ' (there is nothing there)'}; give the folder of prompt versions (<id>/<version>.md)`,
    { details: { field: where } },
  );
}

/**
 * The runner options the flags and the operator config give: the folder's file store over the built-in prompts, and
 * the pins. `--prompts` replaces the config's `prompts.dir`; each `--prompt` replaces the config's pin of its id and
 * keeps the others.
 * @throws AgencyError `invalid_argument` (a flag) or `invalid_config` (the config) when the folder is not a folder.
 */
export function promptOptions(
  flags: PromptFlags,
  config?: OperatorPrompts,
): Pick<RunnerOptions, 'prompts' | 'promptVersions'> {
  const dir = flags.prompts ?? config?.dir;
  if (flags.prompts !== undefined) checkPromptFolder(flags.prompts, '--prompts', 'invalid_argument');
  else if (dir !== undefined) checkPromptFolder(dir, `${config?.file}: prompts.dir`, 'invalid_config');
  const pins: Record<string, number> = { ...config?.pins };
  for (const value of flags.prompt ?? []) {
    const [id, version] = parsePromptPin(value);
    pins[id] = version;
  }
  return {
    ...(dir ? { prompts: createFilePromptStore({ dir, after: BUILTIN_PROMPTS }) } : {}),
    ...(Object.keys(pins).length > 0 ? { promptVersions: pins satisfies PromptPins } : {}),
  };
}
