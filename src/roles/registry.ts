import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { errnoCode } from '../core/errno.ts';
import { AgencyError } from '../core/errors.ts';
import { BUILTIN_ROLES } from './builtin-roles.ts';
import type { Role } from './role.ts';
import { roleNameSchema } from './role.ts';
import { readRoleFile } from './role-file.ts';

/** Where roles come from: the YAML files of a roles folder (`AGENCY_ROOT/roles/`), then roles defined in code. */
export type RoleRegistry = {
  /** The folder of role files. */
  readonly dir: string;
  /**
   * The role `name`: its file, else the code role of that name.
   * @throws AgencyError `invalid_argument` for a malformed or unknown name (naming the known ones),
   *   `invalid_config` for a bad file.
   */
  get(name: string): Promise<Role>;
  /** The names of every role, sorted. */
  names(): Promise<string[]>;
};

/**
 * The roles registry of a data root: `<root>/roles/<name>.yaml` files over `roles` defined in code
 * (by default the built-in researcher, writer and reviewer).
 * @example
 * const role = await createRoleRegistry(agencyRoot().root).get('researcher');
 */
export function createRoleRegistry(root: string, roles: readonly Role[] = BUILTIN_ROLES): RoleRegistry {
  const dir = join(root, 'roles');
  const inCode = new Map(roles.map((role) => [role.name, role]));
  const names = async () => {
    const files = await readdir(dir).catch((cause: unknown) => {
      if (errnoCode(cause) === 'ENOENT') return [] as string[];
      throw new AgencyError('invalid_config', `${dir}: the roles folder cannot be listed (${errnoCode(cause)})`);
    });
    const named = files
      .filter((file) => file.endsWith('.yaml'))
      .map((file) => file.slice(0, -'.yaml'.length))
      .filter((name) => roleNameSchema.safeParse(name).success);
    return [...new Set([...named, ...inCode.keys()])].sort();
  };
  return {
    dir,
    names,
    async get(name) {
      const parsed = roleNameSchema.safeParse(name);
      if (!parsed.success) {
        throw new AgencyError(
          'invalid_argument',
          `Role ${JSON.stringify(name).slice(0, 80)} ${parsed.error.issues[0]?.message}`,
          {
            details: { field: 'role' },
          },
        );
      }
      const role = (await readRoleFile(dir, name)) ?? inCode.get(name);
      if (role) return role;
      const known = await names();
      throw new AgencyError(
        'invalid_argument',
        `Unknown role "${name}"; the roles are ${known.join(', ') || 'none'} (add one as ${join(dir, `${name}.yaml`)})`,
        {
          details: { field: 'role', known },
        },
      );
    },
  };
}
