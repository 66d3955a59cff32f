import { AgencyError } from '../../core/errors.ts';
import type { McpCapability } from '../../mcp/mcp-capability.ts';
import type { ServiceLogger } from '../../service/service-logger.ts';
import { silentLogger } from '../../service/service-logger.ts';
import type { TaskService } from '../../service/task-service.ts';
import { installTaskResources } from './task-resources.ts';
import { installTaskSubscriptions } from './task-subscriptions.ts';
import type { TaskToolDeps } from './task-tool-entry.ts';
import { taskToolEntries } from './task-tools.ts';

/** Options for serving governed tasks over MCP (`createMcpServer({ capabilities: [createTasksCapability(…)] })`). */
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

const TASK_INSTRUCTIONS =
  'This server runs governed agent tasks. start_task starts one from a Markdown brief; follow_task follows it until ' +
  'it ends or waits for an approval; list_approvals shows what waits (the plan, or the tool call); decide_approval ' +
  'approves or denies it with a reason, signed with your name, so ask the user before deciding; get_task and ' +
  'read_deliverable read the outcome. Tasks are also resources: agency://tasks/{task_id}, …/events, …/deliverables/{path}.';

/**
 * The governed-tasks capability of an MCP server, over a task service: tools to start, follow, stop, resume and read
 * tasks and to decide approvals, `agency://` resources for task folders with templates, reads and subscriptions, and
 * progress notifications while following a task. Its requests act as a principal, so over HTTP it needs `tokens`.
 *
 * @example
 * const server = createMcpServer({ name: 'agency', capabilities: [createTasksCapability({ service, principal: 'ana' })] });
 * await server.serveStdio();
 */
export function createTasksCapability(options: McpTasksOptions): McpCapability {
  checkTasksOptions(options);
  const deps: TaskToolDeps = {
    service: options.service,
    logger: options.logger ?? silentLogger,
    principal: options.principal ?? 'operator',
    maxReadBytes: options.maxReadBytes ?? 1024 * 1024,
  };
  return {
    name: 'governed tasks',
    capabilities: { resources: { subscribe: true, listChanged: true } },
    tools: taskToolEntries(deps),
    instructions: TASK_INSTRUCTIONS,
    needsPrincipal: true,
    install(server) {
      installTaskResources(server, deps);
      return installTaskSubscriptions(server, deps.service, deps.logger);
    },
  };
}

function checkTasksOptions(tasks: McpTasksOptions): void {
  const invalid = (field: string, problem: string) =>
    new AgencyError('invalid_argument', `createTasksCapability: "${field}" ${problem}`, { details: { field } });
  if (typeof tasks?.service?.start !== 'function')
    throw invalid('service', 'must be a TaskService (createTaskService)');
  if (tasks.principal !== undefined && (typeof tasks.principal !== 'string' || tasks.principal.trim() === ''))
    throw invalid('principal', 'must be a non-empty name');
  const max = tasks.maxReadBytes;
  if (max !== undefined && (!Number.isInteger(max) || max < 1))
    throw invalid('maxReadBytes', 'must be a positive integer');
}
