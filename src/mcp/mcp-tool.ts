import type { JSONSchema7 } from '@ai-sdk/provider';
import type { CallToolResult, Tool as McpToolDescriptor } from '@modelcontextprotocol/sdk/types.js';
import { AgencyError } from '../core/errors.ts';
import type { Tool, ToolContext, ToolEffect } from '../tools/define-tool.ts';
import type { JsonSchemaCompiler } from './json-schema-input.ts';
import { mcpErrorText, mcpResultToModelOutput } from './mcp-output.ts';

/** Calls one tool on the server; the connection routes it to whichever session is live. */
export type McpCallFunction = (
  call: { server: string; mcpName: string; agencyName: string; args: Record<string, unknown> },
  context: ToolContext,
) => Promise<CallToolResult>;

/** Settings for one MCP tool after per-server and per-tool options are merged. */
export type McpToolSettings = { effects: ToolEffect; timeoutMs: number; idempotent: boolean };

/**
 * Wraps an MCP tool as an agency tool. The model sees the server's input schema unchanged; arguments are checked
 * against it with ajv before the call. A result with `isError` becomes a `tool_failed` error result.
 * @throws Error when the input schema does not compile.
 */
export function createMcpTool(options: {
  server: string;
  agencyName: string;
  descriptor: McpToolDescriptor;
  settings: McpToolSettings;
  compiler: JsonSchemaCompiler;
  call: McpCallFunction;
}): Tool<Record<string, unknown>, CallToolResult> {
  const { server, agencyName, descriptor, settings, compiler, call } = options;
  const schema: JSONSchema7 & Record<string, unknown> = deepFreeze(structuredClone(descriptor.inputSchema));
  const input = compiler.compile(schema);
  return Object.freeze({
    name: agencyName,
    description:
      descriptor.description?.trim() || descriptor.title || `Tool "${descriptor.name}" of MCP server "${server}"`,
    input,
    inputSchema: schema,
    effects: settings.effects,
    idempotent: settings.idempotent,
    timeoutMs: settings.timeoutMs,
    async execute(args: Record<string, unknown>, context: ToolContext) {
      const result = await call({ server, mcpName: descriptor.name, agencyName, args }, context);
      if (result.isError) {
        throw new AgencyError('tool_failed', mcpErrorText(result), { details: { server, tool: descriptor.name } });
      }
      return result;
    },
    toModelOutput: mcpResultToModelOutput,
  });
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const item of Object.values(value)) deepFreeze(item);
    Object.freeze(value);
  }
  return value;
}
