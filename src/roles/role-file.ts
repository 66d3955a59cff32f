import { open, realpath } from 'node:fs/promises';
import { join, relative, isAbsolute, sep } from 'node:path';
import { z } from 'zod';
import { errnoCode } from '../core/errno.ts';
import { AgencyError, errorMessage } from '../core/errors.ts';
import { parseYamlConfig } from '../config/yaml-file.ts';
import { type Role, roleSchema } from './role.ts';

/** The largest role file read. */
export const MAX_ROLE_FILE_BYTES = 64 * 1024;

/** A role file as written: `roles/<name>.yaml`, fields in snake_case; the name is the file's. */
export const roleFileSchema = z
  .object({
    description: roleSchema.shape.description,
    persona: roleSchema.shape.persona,
    tools: roleSchema.shape.tools,
    memory: roleSchema.shape.memory,
    policy: roleSchema.shape.policy,
    budgets: z
      .object({
        max_iterations: z.int().positive().optional(),
        max_total_tokens: z.int().positive().optional(),
        max_cost_usd: z.number().positive().optional(),
        max_time_s: z.number().positive().optional(),
      })
      .strict()
      .optional(),
  })
  .strict();

/**
 * Reads the role file `file`, which must resolve inside `rolesDir` (a symlink may not lead out of it) and be at most
 * {@link MAX_ROLE_FILE_BYTES}. Returns undefined when there is no such file.
 * @throws AgencyError `invalid_config` naming the file, each bad field with its line, and the fix.
 */
export async function readRoleFile(rolesDir: string, name: string): Promise<Role | undefined> {
  const file = join(rolesDir, `${name}.yaml`);
  const real = await realpath(file).catch((cause: unknown) => {
    if (errnoCode(cause) === 'ENOENT') return undefined;
    throw unreadable(file, cause);
  });
  if (real === undefined) return undefined;
  const dir = await realpath(rolesDir);
  const inside = relative(dir, real);
  if (inside === '' || inside.startsWith(`..${sep}`) || inside === '..' || isAbsolute(inside)) {
    throw new AgencyError(
      'invalid_config',
      `${file}: resolves to ${real}, outside ${dir}; a role file must live in the roles folder`,
      {
        details: { file },
      },
    );
  }
  const text = await readCapped(real, file);
  const raw = parseYamlConfig(text, file, roleFileSchema);
  const { budgets, ...rest } = raw;
  return stripUndefined({
    name,
    ...rest,
    ...(budgets
      ? {
          budgets: stripUndefined({
            maxIterations: budgets.max_iterations,
            maxTotalTokens: budgets.max_total_tokens,
            maxCostUsd: budgets.max_cost_usd,
            maxWallClockMs: budgets.max_time_s === undefined ? undefined : Math.round(budgets.max_time_s * 1000),
          }),
        }
      : {}),
  }) as Role;
}

async function readCapped(real: string, file: string): Promise<string> {
  const handle = await open(real, 'r').catch((cause: unknown) => {
    throw unreadable(file, cause);
  });
  try {
    const { size, isFile } = await handle.stat().then((stat) => ({ size: stat.size, isFile: stat.isFile() }));
    if (!isFile)
      throw new AgencyError('invalid_config', `${file}: is not a regular file; a role is one YAML file`, {
        details: { file },
      });
    if (size > MAX_ROLE_FILE_BYTES) {
      throw new AgencyError(
        'invalid_config',
        `${file}: ${size} bytes is over the ${MAX_ROLE_FILE_BYTES}-byte limit of a role file; shorten it`,
        {
          details: { file },
        },
      );
    }
    const buffer = Buffer.alloc(MAX_ROLE_FILE_BYTES + 1);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    if (bytesRead > MAX_ROLE_FILE_BYTES) {
      throw new AgencyError(
        'invalid_config',
        `${file}: grew over the ${MAX_ROLE_FILE_BYTES}-byte limit while being read`,
        { details: { file } },
      );
    }
    return buffer.subarray(0, bytesRead).toString('utf8');
  } finally {
    await handle.close();
  }
}

function unreadable(file: string, cause: unknown): AgencyError {
  return new AgencyError('invalid_config', `${file}: cannot be read (${errorMessage(cause)})`, {
    details: { file },
    cause,
  });
}

function stripUndefined<T extends Record<string, unknown>>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, field]) => field !== undefined)) as T;
}
