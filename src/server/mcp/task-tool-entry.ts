import type { CallToolResult, ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import type { z } from 'zod';
import type { ServiceLogger } from '../../service/service-logger.ts';
import type { Principal, TaskService } from '../../service/task-service.ts';
import { parseInput } from '../../api/parse-input.ts';
import { toModelJsonSchema } from '../../tools/define-tool.ts';
import { errorResult } from './task-answers.ts';
import type { McpRequestExtra, McpToolEntry } from '../../mcp/mcp-capability.ts';

/** What every task tool works with. */
export type TaskToolDeps = {
  service: TaskService;
  logger: ServiceLogger;
  /** The principal of requests whose transport authenticates nobody (stdio, an in-memory pair). */
  principal: string;
  maxReadBytes: number;
};

/** What one call of a task tool gets: the deps, who asks, and the request (signal, progress token, notifier). */
export type TaskToolContext = TaskToolDeps & { by: Principal; extra: McpRequestExtra };

/** A task tool: its name, what it does, its zod input (validated as the HTTP API validates), and its action. */
export type TaskToolDefinition<S extends z.ZodType> = {
  name: string;
  description: string;
  input: S;
  annotations: ToolAnnotations;
  run(input: z.output<S>, context: TaskToolContext): Promise<CallToolResult>;
};

/**
 * The principal a request acts as: the name of the bearer token it carried over HTTP (`extra.authInfo`, set by the
 * listener after checking the token), else the server's own principal (stdio: the operator who started it).
 */
export function principalOf(extra: McpRequestExtra, fallback: string): Principal {
  const name = extra.authInfo?.extra?.principal;
  return { name: typeof name === 'string' && name !== '' ? name : fallback };
}

/**
 * Declares a task tool; given the deps, it becomes a tool entry. Its arguments are parsed with its zod schema by the
 * HTTP API's `parseInput` (so an error names the field the same way), and any failure becomes an error result with
 * the API's error body.
 */
export function taskTool<S extends z.ZodType>(definition: TaskToolDefinition<S>): (deps: TaskToolDeps) => McpToolEntry {
  const { name, description, input, annotations } = definition;
  const inputSchema = toModelJsonSchema(input) as McpToolEntry['descriptor']['inputSchema'];
  return (deps) => ({
    descriptor: { name, description, inputSchema, annotations },
    async call(args, extra) {
      try {
        const parsed = parseInput(input as z.ZodType<z.output<S>>, args, '', 'arguments');
        return await definition.run(parsed, { ...deps, by: principalOf(extra, deps.principal), extra });
      } catch (error) {
        return errorResult(error, deps.logger, `tools/call ${name}`);
      }
    },
  });
}
