import type { LanguageModelV4FunctionTool } from '@ai-sdk/provider';
import { AgencyError } from '../core/errors.ts';
import type { Tool } from './define-tool.ts';
import { type RunToolCallOptions, runToolCall, type ToolCall, type ToolCallOutcome } from './run-tool-call.ts';

/** A set of tools with lookup, stable ordering and the definitions the model sees. */
export type ToolRegistry = {
  get(name: string): Tool | undefined;
  has(name: string): boolean;
  /** Tool names, sorted. */
  names(): readonly string[];
  /** Tools, sorted by name. */
  list(): readonly Tool[];
  /**
   * The tool definitions for a model call, sorted by name and built once, so they serialize byte-identically on
   * every call and keep the provider's prompt cache warm.
   */
  definitions(): readonly LanguageModelV4FunctionTool[];
  /** Runs a call against this set; see `runToolCall`. Never throws. */
  run(call: ToolCall, options?: Omit<RunToolCallOptions, 'available'>): Promise<ToolCallOutcome>;
};

/**
 * Creates a registry. The order tools are passed in does not matter: everything the model sees is sorted by name.
 * @throws AgencyError `tool_definition_invalid` when two tools share a name.
 */
export function createToolRegistry(tools: readonly Tool[]): ToolRegistry {
  const byName = toolsByName(tools);
  const sorted = Object.freeze([...byName.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)));
  const names = Object.freeze(sorted.map((tool) => tool.name));
  const definitions = Object.freeze(
    sorted.map((tool): LanguageModelV4FunctionTool =>
      Object.freeze({
        type: 'function',
        name: tool.name,
        description: tool.description,
        inputSchema: tool.inputSchema,
      }),
    ),
  );
  return {
    get: (name) => byName.get(name),
    has: (name) => byName.has(name),
    names: () => names,
    list: () => sorted,
    definitions: () => definitions,
    run: (call, options) => runToolCall(byName.get(call.toolName), call, { ...options, available: names }),
  };
}

/**
 * The tools by name.
 * @throws AgencyError `tool_definition_invalid` when two tools share a name.
 */
export function toolsByName(tools: readonly Tool[]): Map<string, Tool> {
  const byName = new Map<string, Tool>();
  for (const tool of tools) {
    if (byName.has(tool.name)) {
      throw new AgencyError(
        'tool_definition_invalid',
        `Two tools are named "${tool.name}"; tool names must be unique`,
        {
          details: { tool: tool.name },
        },
      );
    }
    byName.set(tool.name, tool);
  }
  return byName;
}
