import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { cliLogger } from '../cli-logger.ts';
import { type AgencyRoot, agencyRoot, agencyRootAt } from '../../config/agency-root.ts';
import type { ServiceLogger } from '../../service/service-logger.ts';
import type { TaskService } from '../../service/task-service.ts';
import { startServer } from '../../server/serve.ts';
import type { Output } from '../render.ts';
import { openOperatorService, type ServiceCommandOptions } from './operator-service.ts';
import { describeFleet, type ServeFleetFlags, serveFleet } from './serve-fleet.ts';

/** How long `agency serve` waits for its runs and connections to stop before it exits anyway. */
const STOP_DEADLINE_MS = 10_000;

/** Options of `agency serve`. */
export type ServeCommandOptions = {
  root?: string;
  host?: string;
  port?: number;
  tls?: boolean;
  regenCert?: boolean;
  allowedHost?: string[];
  mcpPort?: number;
  logFile?: string;
  logLevel?: 'info' | 'debug' | 'warn' | 'error';
} & ServeFleetFlags &
  ServiceCommandOptions;

const VERSION = '0.1.0';
/** The name the server token acts as, over HTTP and over MCP alike. */
const PRINCIPAL = 'operator';

/**
 * `agency serve`: the HTTP API, the dashboard and the approvals inbox, over tasks kept under the data root, and with
 * `--mcp-port` the same tasks over MCP (Streamable HTTP, the same token). Runs are held to the operator's settings,
 * narrowed by each task's `task/agency.json`, exactly as `agency run` holds them.
 */
export async function serveCommand(options: ServeCommandOptions, out: Output): Promise<number> {
  const root = options.root ? agencyRootAt(options.root) : agencyRoot();
  const fleet = serveFleet(options);
  const logger = cliLogger(options.logFile ?? join(root.server, 'server.log'), {
    component: 'server',
    name: 'agency-serve',
    level: options.logLevel,
  });
  const { service, models, operator } = await openOperatorService(options, root, logger);
  const dashboard = join(import.meta.dirname, '../../../web/dist');
  const server = await startServer({
    root,
    service,
    logger,
    version: VERSION,
    policy: operator.policy,
    principal: PRINCIPAL,
    ...(options.host ? { host: options.host } : {}),
    ...(options.port !== undefined ? { port: options.port } : {}),
    ...(options.tls ? { tls: true } : {}),
    ...(options.regenCert ? { regenerateCertificate: true } : {}),
    ...(options.allowedHost ? { allowedHosts: options.allowedHost } : {}),
    ...(existsSync(dashboard) ? { dashboardDir: dashboard } : {}),
    ...(fleet ? { fleet } : {}),
  });
  const mcp = options.mcpPort === undefined ? undefined : await serveMcp(options, root, service, logger);
  out.write(`agency serve: ${server.url}  (data root ${root.root})\n`);
  if (server.newToken) {
    out.write(`Token (shown once; kept in ${server.tokenFile}): ${server.newToken}\n`);
    out.write(`Open the dashboard: ${server.url}/?token=${server.newToken}\n`);
  } else if (server.tokenFile) out.write(`Token: in ${server.tokenFile}\n`);
  else out.write('Token: from AGENCY_TOKEN\n');
  if (server.certFile) out.write(`TLS: self-signed certificate ${server.certFile}\n`);
  if (mcp) out.write(`MCP: ${mcp.url}  (Streamable HTTP, the same token)\n`);
  out.write(`Fleet: ${describeFleet(fleet)}\n`);
  out.write(
    `Models: ${models.join(', ')}; policy: ${operator.policy}; log: ${options.logFile ?? join(root.server, 'server.log')}\n`,
  );
  await new Promise<void>((resolve) => {
    const stop = () => resolve();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  out.write('Stopping: runs stop at their next boundary and resume on the next start…\n');
  // A stop has a deadline: whatever still holds the process after it (a run that does not reach its boundary, an open
  // connection) is left to the journal, from which the next start resumes the run.
  setTimeout(() => {
    out.write(
      `Stopped waiting after ${STOP_DEADLINE_MS / 1000} s (still open: ${openResources()}); unfinished runs resume on the next start.\n`,
    );
    process.exit(0);
  }, STOP_DEADLINE_MS).unref();
  await mcp?.close();
  await server.close();
  return 0;
}

// Governed tasks over MCP, on loopback beside the API, with the API's token: its requests act as the same principal
// the API's token acts as, and go through the same service.
async function serveMcp(options: ServeCommandOptions, root: AgencyRoot, service: TaskService, logger: ServiceLogger) {
  const { createMcpServer } = await import('../../mcp/mcp-server.ts');
  const { createTasksCapability } = await import('../../server/mcp/tasks-capability.ts');
  const { apiToken } = await import('../../http/token-file.ts');
  const { token } = await apiToken(root.server);
  const mcp = createMcpServer({
    name: 'agency',
    version: VERSION,
    capabilities: [createTasksCapability({ service, logger })],
  });
  const listener = await mcp.listenHttp({
    port: options.mcpPort ?? 0,
    tokens: [{ name: PRINCIPAL, token }],
    allowedHosts: ['localhost', '127.0.0.1', '[::1]', ...(options.allowedHost ?? [])],
  });
  return { url: listener.url, close: () => mcp.close() };
}

/** What still holds the event loop, counted by kind (`TCPSocketWrap ×2, Timeout`), for a stop that overran. */
function openResources(): string {
  const counts = new Map<string, number>();
  for (const kind of process.getActiveResourcesInfo()) counts.set(kind, (counts.get(kind) ?? 0) + 1);
  return [...counts].map(([kind, count]) => (count > 1 ? `${kind} ×${count}` : kind)).join(', ') || 'nothing';
}
