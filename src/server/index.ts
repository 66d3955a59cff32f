// agency/server: `agency serve` as a library. `startServer` serves the HTTP API and the dashboard on a port;
// `createServerApp` is the same API as a Hono app, to mount in another server or to call with `app.request()`.
// Both take a task service over a data root: `createTaskService({ root: agencyRootAt(dir), models, runnerFor })`.

export { agencyRoot, type AgencyRoot, agencyRootAt } from '../config/agency-root.ts';
export { type ServiceLogger, silentLogger } from '../service/service-logger.ts';
export {
  createTaskService,
  type ListQuery,
  type Principal,
  type TaskService,
  type TaskServiceOptions,
} from '../service/task-service.ts';
export { createServerApp, type ServerAppOptions, type ServerEnv } from './app.ts';
export { allowedHosts } from '../http/hosts.ts';
export type { NamedToken } from '../credentials/bearer-token.ts';
export { type RunningServer, startServer, type StartServerOptions } from './serve.ts';
export type { FollowEnd, FollowResult } from './mcp/follow-task.ts';
export type { McpTasksOptions } from './mcp/tasks-capability.ts';
