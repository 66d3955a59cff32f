import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  type ServerCapabilities,
} from '@modelcontextprotocol/sdk/types.js';
import { AgencyError } from '../core/errors.ts';
import type { Tool } from '../tools/define-tool.ts';
import { runToolCall } from '../tools/run-tool-call.ts';
import { outcomeToCallToolResult, toolDescriptor } from './tool-outcome-result.ts';

/**
 * Something the MCP server offers, installed on every session. Tools are the first; governed tasks and approvals
 * will be others, each declaring its capabilities and request handlers the same way.
 */
export type McpCapability = {
  readonly capabilities: ServerCapabilities;
  install(server: Server): void;
};

/** The tools capability: a registry of agency tools, listed and called through `runToolCall`. */
export type ToolsCapability = McpCapability & {
  register(tools: readonly Tool[]): void;
  list(): readonly Tool[];
};

/** Creates the tools capability. `onChange` runs after tools are registered, to notify live sessions. */
export function createToolsCapability(onChange: () => void): ToolsCapability {
  const byName = new Map<string, Tool>();
  let sorted: readonly Tool[] = [];
  return {
    capabilities: { tools: { listChanged: true } },
    register(tools) {
      const seen = new Set<string>();
      for (const tool of tools) {
        if (byName.has(tool.name) || seen.has(tool.name)) {
          throw new AgencyError(
            'tool_definition_invalid',
            `Two tools are named "${tool.name}"; tool names must be unique`,
            {
              details: { tool: tool.name },
            },
          );
        }
        seen.add(tool.name);
      }
      for (const tool of tools) byName.set(tool.name, tool);
      sorted = [...byName.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      if (tools.length > 0) onChange();
    },
    list: () => sorted,
    install(server) {
      server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: sorted.map(toolDescriptor) }));
      server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
        const { name, arguments: input = {} } = request.params;
        const tool = byName.get(name);
        // An unknown tool is a protocol error in MCP, unlike bad arguments, which the model should see and fix.
        if (!tool) {
          const names = sorted.map((t) => t.name).join(', ') || '(none)';
          throw new McpError(ErrorCode.InvalidParams, `Unknown tool "${name}". Available tools: ${names}`);
        }
        const outcome = await runToolCall(
          tool,
          { toolCallId: `mcp_${String(extra.requestId)}`, toolName: name, input },
          { signal: extra.signal },
        );
        return outcomeToCallToolResult(outcome);
      });
    },
  };
}
