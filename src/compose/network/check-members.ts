import { AgencyError } from '../../core/errors.ts';
import type { Agent } from '../../agent/types.ts';
import type { Tool } from '../../tools/define-tool.ts';

/** The longest sub-agent description a router is shown. */
export const MAX_AGENT_DESCRIPTION_CHARS = 1024;

const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;
// Control characters other than tab and newline have no place in a description a model reads as a tool's.
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029]/;

/**
 * Checks the members of a network before its router sees them: each sub-agent becomes a tool, so its name must be
 * a tool name and its description a bounded, printable text; names must not clash with each other, the plain
 * tools, or the network's own.
 * @throws AgencyError `invalid_argument` naming the member and the field to fix.
 */
export function checkMembers(network: string, agents: unknown, tools: readonly Tool[]): void {
  const fail = (message: string): never => {
    throw new AgencyError('invalid_argument', `Network "${network}": ${message}`);
  };
  if (!Array.isArray(agents) || agents.length === 0) fail('"agents" must be a non-empty array of agents');
  const seen = new Set<string>([network, ...tools.map((tool) => tool.name)]);
  (agents as unknown[]).forEach((candidate, index) => {
    const agent = candidate as Partial<Agent> | null;
    const where = `"agents[${index}]"`;
    if (typeof agent !== 'object' || agent === null || typeof agent.execute !== 'function')
      fail(`${where} is not an agent (it needs name, description and execute)`);
    const { name, description } = agent as Agent;
    if (typeof name !== 'string' || !TOOL_NAME.test(name))
      fail(`${where}.name ${shown(name)} must be 1-64 letters, digits, "_" or "-": the router calls it as a tool`);
    if (seen.has(name))
      fail(`${where}.name "${name}" is used twice (by another agent, a tool or the network); rename one`);
    seen.add(name);
    if (typeof description !== 'string' || description.trim() === '')
      fail(`${where} ("${name}") needs a "description": the router picks agents by it`);
    if (description.length > MAX_AGENT_DESCRIPTION_CHARS)
      fail(
        `${where}.description ("${name}") has ${description.length} characters; shorten it to ${MAX_AGENT_DESCRIPTION_CHARS}`,
      );
    if (CONTROL.test(description)) fail(`${where}.description ("${name}") contains control characters; use plain text`);
  });
}

function shown(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}
