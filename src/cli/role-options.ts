import { agencyRoot } from '../config/agency-root.ts';
import { createRoleRegistry } from '../roles/registry.ts';
import type { Role } from '../roles/role.ts';
import type { Tool } from '../tools/define-tool.ts';
import type { OperatorMemory } from './operator-config.ts';

/** What a role presets in `agency run`: the flags it fills in when they are not given. */
export type RoleFlags = {
  role?: string;
  policy?: Role['policy'];
  maxIterations?: number;
  maxCost?: number;
  maxTotalTokens?: number;
  /** Seconds. */
  maxTime?: number;
};

/** The role `--role` names, from the registry of `AGENCY_ROOT`; none without the flag. */
export async function roleOf(
  name: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
): Promise<Role | undefined> {
  return name === undefined ? undefined : createRoleRegistry(agencyRoot(env).root).get(name);
}

/** The options with the role's policy and budgets where no flag set them: explicit flags win over the role. */
export function withRoleFlags<T extends RoleFlags>(options: T, role: Role | undefined): T {
  if (!role) return options;
  const { budgets = {} } = role;
  const seconds = budgets.maxWallClockMs === undefined ? undefined : budgets.maxWallClockMs / 1000;
  const preset: Record<keyof RoleFlags, unknown> = {
    role: undefined,
    policy: role.policy,
    maxIterations: budgets.maxIterations,
    maxCost: budgets.maxCostUsd,
    maxTotalTokens: budgets.maxTotalTokens,
    maxTime: seconds,
  };
  const filled = { ...options };
  for (const [key, value] of Object.entries(preset) as Array<[keyof RoleFlags, unknown]>) {
    if (filled[key] === undefined && value !== undefined) (filled as Record<string, unknown>)[key] = value;
  }
  return filled;
}

/** The run's tools narrowed to the role's (a role never adds a tool the run's settings left out). */
export function roleTools(tools: Tool[], role: Role | undefined): Tool[] {
  if (!role?.tools) return tools;
  const wanted = new Set<string>(role.tools);
  return tools.filter((tool) => wanted.has(tool.name));
}

/** The run's memory with the role's channel in place of the agent channel. */
export function roleMemory(memory: OperatorMemory | undefined, role: Role | undefined): OperatorMemory | undefined {
  if (!memory || !role?.memory) return memory;
  return { ...memory, channels: { ...memory.channels, agent: role.memory.channel } };
}
