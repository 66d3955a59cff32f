import type { ServiceLogger } from '../service/service-logger.ts';
import { silentLogger } from '../service/service-logger.ts';
import type { TaskService } from '../service/task-service.ts';
import { installTaskResources } from './task-resources.ts';
import { installTaskSubscriptions } from './task-subscriptions.ts';
import type { TaskToolDeps } from './task-tool-entry.ts';
import { taskToolEntries } from './task-tools.ts';
import type { McpCapability, ToolsCapability } from './tools-capability.ts';

/** Options for serving governed tasks over MCP (`createMcpServer({ tasks })`). */
export type McpTasksOptions = {
  /** The task service: the same one the HTTP API runs over, or one of its own over a data root. */
  service: TaskService;
  /**
   * The name actions and decisions are signed with when the transport authenticates nobody: stdio and `connect`.
   * Over HTTP, each request acts as the name of the bearer token it carried.
   * @default 'operator'
   */
  principal?: string;
  /** The largest deliverable or journal read sent in one answer. @default 1048576 (1 MiB) */
  maxReadBytes?: number;
  /** Where unexpected failures are logged (never to stdout, which a stdio server speaks on). */
  logger?: ServiceLogger;
};

/**
 * The governed-tasks capability: the task tools (added to the tools capability), resources for task folders with
 * templates, reads and subscriptions, and progress notifications while following a task.
 */
export function createTasksCapability(options: McpTasksOptions, tools: ToolsCapability): McpCapability {
  const deps: TaskToolDeps = {
    service: options.service,
    logger: options.logger ?? silentLogger,
    principal: options.principal ?? 'operator',
    maxReadBytes: options.maxReadBytes ?? 1024 * 1024,
  };
  tools.add(taskToolEntries(deps));
  return {
    capabilities: { resources: { subscribe: true, listChanged: true } },
    install(server) {
      installTaskResources(server, deps);
      return installTaskSubscriptions(server, deps.service, deps.logger);
    },
  };
}
