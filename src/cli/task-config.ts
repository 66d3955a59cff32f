import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { AgencyError } from '../core/errors.ts';
import type { TaskPaths } from '../task/layout.ts';
import type { Tool } from '../tools/define-tool.ts';
import { taskTools } from '../tools/builtin/index.ts';

/** `task/agency.json`: what a CLI run of this task may reach. Optional; every field has a safe default. */
export const taskConfigSchema = z
  .object({
    /** Hosts, CIDRs or host:port entries the network tools may reach besides public addresses. */
    network: z
      .object({ allow: z.array(z.string()).default([]) })
      .strict()
      .optional(),
    /** Turns the network tools off entirely. */
    offline: z.boolean().optional(),
    /** The command `test_runner` runs in progress/artifacts/, as argv. */
    test_command: z.array(z.string().min(1)).min(1).optional(),
    /** `bwrap` (default) or `none` to run commands unsandboxed (logged loudly on every call). */
    sandbox: z.enum(['bwrap', 'none']).optional(),
    /** Tools whose every call needs approval. */
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
  const file = join(paths.task, 'agency.json');
  const raw = await readFile(file, 'utf8').catch(() => undefined);
  if (raw === undefined) return {};
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch (cause) {
    throw new AgencyError('invalid_config', `${file} is not valid JSON (${(cause as Error).message})`, { cause });
  }
  const parsed = taskConfigSchema.safeParse(json);
  if (!parsed.success) {
    const issues = parsed.error.issues.map(
      (issue) => `"${issue.path.map(String).join('.') || '(file)'}" ${issue.message}`,
    );
    throw new AgencyError('invalid_config', `${file}: ${issues.join('; ')}`);
  }
  return parsed.data;
}

/** The built-in tools for a CLI run of a task, shaped by its config. */
export function cliTaskTools(paths: TaskPaths, config: TaskConfig): Tool[] {
  return taskTools(paths, {
    network: config.offline ? false : { policy: { allow: config.network?.allow ?? [] } },
    sandbox: config.sandbox ?? 'bwrap',
    ...(config.test_command ? { testRunner: { command: config.test_command } } : {}),
  });
}
