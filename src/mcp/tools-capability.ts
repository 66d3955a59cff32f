import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
import { AgencyError } from '../core/errors.ts';
import type { Tool } from '../tools/define-tool.ts';
import { runToolCall } from '../tools/run-tool-call.ts';
import type { McpCapability, McpToolEntry } from './mcp-capability.ts';
import { outcomeToCallToolResult, toolDescriptor } from './tool-outcome-result.ts';

/** The tools capability: agency tools, called through `runToolCall`, and the server's own tool entries. */
export type ToolsCapability = McpCapability & {
  register(tools: readonly Tool[]): void;
  /** Adds tool entries; names are shared with agency tools and must be unique. */
  add(entries: readonly McpToolEntry[]): void;
  /** The agency tools registered, sorted by name. */
  list(): readonly Tool[];
};

/** Creates the tools capability. `onChange` runs after tools are registered, to notify live sessions. */
export function createToolsCapability(onChange: () => void): ToolsCapability {
  const byName = new Map<string, McpToolEntry>();
  const agencyTools = new Map<string, Tool>();
  let sorted: readonly McpToolEntry[] = [];
  let sortedTools: readonly Tool[] = [];

  const addEntries = (entries: readonly McpToolEntry[]) => {
    const seen = new Set<string>();
    for (const { descriptor } of entries) {
      if (byName.has(descriptor.name) || seen.has(descriptor.name)) {
        throw new AgencyError(
          'tool_definition_invalid',
          `Two tools are named "${descriptor.name}"; tool names must be unique`,
          { details: { tool: descriptor.name } },
        );
      }
      seen.add(descriptor.name);
    }
    for (const entry of entries) byName.set(entry.descriptor.name, entry);
    sorted = [...byName.values()].sort((a, b) => compare(a.descriptor.name, b.descriptor.name));
    if (entries.length > 0) onChange();
  };

  return {
    name: 'tools',
    capabilities: { tools: { listChanged: true } },
    register(tools) {
      addEntries(tools.map(agencyToolEntry));
      for (const tool of tools) agencyTools.set(tool.name, tool);
      sortedTools = [...agencyTools.values()].sort((a, b) => compare(a.name, b.name));
    },
    add: addEntries,
    list: () => sortedTools,
    install(server) {
      server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: sorted.map((entry) => entry.descriptor) }));
      server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
        const { name, arguments: input = {} } = request.params;
        const entry = byName.get(name);
        // An unknown tool is a protocol error in MCP, unlike bad arguments, which the model should see and fix.
        if (!entry) {
          const names = sorted.map((item) => item.descriptor.name).join(', ') || '(none)';
          throw new McpError(ErrorCode.InvalidParams, `Unknown tool "${name}". Available tools: ${names}`);
        }
        return entry.call(input, extra);
      });
    },
  };
}

function agencyToolEntry(tool: Tool): McpToolEntry {
  return {
    descriptor: toolDescriptor(tool),
    async call(input, extra) {
      const outcome = await runToolCall(
        tool,
        { toolCallId: `mcp_${String(extra.requestId)}`, toolName: tool.name, input },
        { signal: extra.signal },
      );
      return outcomeToCallToolResult(outcome);
    },
  };
}

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
