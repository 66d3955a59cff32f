import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { AgencyError } from '../core/errors.ts';
import type { TaskPaths } from '../task/layout.ts';
import { parseContractFile } from '../task/task-spec.ts';
import type { Tool } from '../tools/define-tool.ts';
import { taskTools } from '../tools/builtin/task-tools.ts';
import type { OperatorSettings } from './operator-config.ts';
import { isCoveredBy, parseAllowEntry } from './operator-network.ts';

/**
 * `task/agency.json`: what a CLI run of this task needs, within what the operator allows. `task/` is untrusted
 * input, so every field may only narrow the operator's settings (docs/task-folder.md).
 */
export const taskConfigSchema = z
  .object({
    /** Hosts the network tools may reach without approval: each must be among the operator's. */
    network: z
      .object({ allow: z.array(z.string()).default([]) })
      .strict()
      .optional(),
    /** `true` turns the network tools off; `false` cannot turn them on when the operator runs offline. */
    offline: z.boolean().optional(),
    /** The command `test_runner` runs in progress/artifacts/, as argv, inside the operator's sandbox. */
    test_command: z.array(z.string().min(1)).min(1).optional(),
    /** `bwrap` only: a task cannot switch isolation off. */
    sandbox: z.enum(['bwrap', 'none']).optional(),
    /** More tools whose every call needs approval (the spec's `require_tools`). */
    require_tools: z.array(z.string()).optional(),
  })
  .strict();

/** A task config. */
export type TaskConfig = z.infer<typeof taskConfigSchema>;

/**
 * Reads `task/agency.json`, if present.
 * @throws AgencyError `invalid_config` naming the file and each bad field.
 */
export async function readTaskConfig(paths: TaskPaths): Promise<TaskConfig> {
  const file = taskConfigPath(paths);
  const raw = await readFile(file, 'utf8').catch(() => undefined);
  return raw === undefined ? {} : parseContractFile(file, raw, taskConfigSchema, 'invalid_config');
}

/** Where a task's config is: `task/agency.json`. */
export function taskConfigPath(paths: TaskPaths): string {
  return join(paths.task, 'agency.json');
}

/** What a CLI run may do: the operator's settings, narrowed by the task's. */
export type RunSettings = {
  operator: OperatorSettings;
  sandbox: 'bwrap' | 'none';
  offline: boolean;
  /** The hosts the network tools may reach without approval (and the private ones they may reach at all). */
  allow: string[];
  testCommand?: string[] | undefined;
  /** The task's `require_tools`, which go into the spec. */
  requireTools: string[];
};

/**
 * The operator's settings narrowed by `task/agency.json`. A task may list fewer hosts, go offline, require more
 * approvals and set a test command; anything that would widen what the operator allows is refused.
 *
 * @throws AgencyError `invalid_config` naming the file, each field that would widen, and where the operator sets it.
 * @example
 * const settings = narrowToOperator(await readOperatorSettings(flags), await readTaskConfig(paths), file);
 */
export function narrowToOperator(operator: OperatorSettings, task: TaskConfig, file: string): RunSettings {
  const problems: string[] = [];
  if (task.sandbox === 'none' && operator.sandbox !== 'none')
    problems.push(
      `"sandbox": "none" would run commands unsandboxed, and a task may not switch isolation off; the operator sets it with --sandbox none or "sandbox" in ${operator.where}`,
    );
  if (task.offline === false && operator.offline)
    problems.push(
      `"offline": false would turn on the network the operator turned off; the operator sets it with "offline" in ${operator.where}`,
    );
  (task.network?.allow ?? []).forEach((entry, index) => {
    const problem = widens(operator, entry);
    if (problem) problems.push(`"network.allow.${index}": "${entry}" ${problem}`);
  });
  if (problems.length > 0) throw new AgencyError('invalid_config', `${file}: ${problems.join('; ')}`);
  return {
    operator,
    sandbox: task.sandbox ?? operator.sandbox,
    offline: operator.offline || task.offline === true,
    allow: task.network ? task.network.allow : operator.allow,
    testCommand: task.test_command,
    requireTools: task.require_tools ?? [],
  };
}

function widens(operator: OperatorSettings, entry: string): string | undefined {
  const parsed = parseAllowEntry(entry);
  if ('problem' in parsed) return `is not a valid entry: ${parsed.problem}`;
  if (isCoveredBy(operator.allowlist, parsed)) return undefined;
  const allowed = operator.allow.length > 0 ? operator.allow.join(', ') : 'none';
  return `is not among the hosts the operator allows (${allowed}), and a task may only narrow them; the operator sets them with --allow-host or "network.allow" in ${operator.where}`;
}

/** The built-in tools for a CLI run of a task, shaped by its settings. */
export function cliTaskTools(paths: TaskPaths, settings: RunSettings): Tool[] {
  return taskTools(paths, {
    network: settings.offline ? false : { policy: { allow: settings.allow } },
    sandbox: settings.sandbox,
    ...(settings.testCommand ? { testRunner: { command: settings.testCommand } } : {}),
  });
}
