import { statSync } from 'node:fs';
import { AgencyError } from '../core/errors.ts';
import { BUILTIN_PROMPTS } from '../prompts/builtin-prompts.ts';
import { createFilePromptStore } from '../prompts/file/file-prompt-store.ts';
import { PROMPT_ID } from '../prompts/prompt-checks.ts';
import type { PromptPins } from '../prompts/prompt-set.ts';
import type { RunnerOptions } from '../task/runner-options.ts';

/** `--prompts <dir>` and `--prompt <id@version>` of `agency run` and `agency resume`. */
export type PromptFlags = {
  /** A folder of prompt versions (`<id>/<version>.md`) laid over the built-in prompts. */
  prompts?: string;
  /** Versions to use instead of the latest, as `id@version`. */
  prompt?: string[];
};

/**
 * Reads one `--prompt` value.
 * @throws Error saying what the value must look like.
 */
export function parsePromptPin(value: string): [id: string, version: number] {
  const at = value.lastIndexOf('@');
  const id = value.slice(0, at);
  const version = Number(value.slice(at + 1));
  if (at < 1 || !PROMPT_ID.test(id) || !Number.isSafeInteger(version) || version < 1) {
    throw new Error(`"${value}" is not a prompt version: write it as <id>@<version>, e.g. runner.plan@1`);
  }
  return [id, version];
}

/**
 * The runner options the flags give: the folder's file store over the built-in prompts, and the pins.
 * @throws AgencyError `invalid_argument` when `--prompts` is not a folder (a typo must not fall back to the built-in
 * prompts unnoticed).
 */
export function promptOptions(flags: PromptFlags): Pick<RunnerOptions, 'prompts' | 'promptVersions'> {
  if (flags.prompts !== undefined && !statSync(flags.prompts, { throwIfNoEntry: false })?.isDirectory()) {
    throw new AgencyError(
      'invalid_argument',
      `--prompts: ${flags.prompts} is not a folder; give the folder of prompt versions (<id>/<version>.md)`,
      { details: { field: 'prompts' } },
    );
  }
  const pins: Record<string, number> = {};
  for (const value of flags.prompt ?? []) {
    const [id, version] = parsePromptPin(value);
    pins[id] = version;
  }
  return {
    ...(flags.prompts ? { prompts: createFilePromptStore({ dir: flags.prompts, after: BUILTIN_PROMPTS }) } : {}),
    ...(Object.keys(pins).length > 0 ? { promptVersions: pins satisfies PromptPins } : {}),
  };
}
