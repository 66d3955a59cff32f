import { join } from 'node:path';
import { createMcpServer } from '../../mcp/mcp-server.ts';
import { cliLogger } from '../cli-logger.ts';
import { agencyRoot, agencyRootAt } from '../../config/agency-root.ts';
import { createTasksCapability } from '../../server/mcp/tasks-capability.ts';
import type { Output } from '../render.ts';
import { openOperatorService, type ServiceCommandOptions } from './operator-service.ts';

/** Options of `agency mcp`. */
export type McpCommandOptions = {
  root?: string;
  /** The name decisions and actions are signed with. */
  as?: string;
  logFile?: string;
} & ServiceCommandOptions;

/**
 * `agency mcp`: governed tasks for an MCP client that starts this command (Claude Desktop, an IDE), on stdin and
 * stdout, over the tasks under the data root. Runs are held to the operator's settings as with `agency serve`, and
 * decisions are signed with `--as` (default: $USER). stdout carries the protocol: everything else goes to stderr and
 * the log file. It ends when the client closes stdin, or on SIGINT or SIGTERM; runs in flight resume on the next
 * start.
 */
export async function mcpCommand(options: McpCommandOptions, err: Output): Promise<number> {
  const root = options.root ? agencyRootAt(options.root) : agencyRoot();
  const logFile = options.logFile ?? join(root.server, 'mcp.log');
  const logger = cliLogger(logFile, { component: 'mcp', name: 'agency-mcp' });
  const principal = options.as ?? process.env.USER ?? 'operator';
  const { service, models, operator } = await openOperatorService(options, root, logger);
  const server = createMcpServer({
    name: 'agency',
    version: '0.1.0',
    capabilities: [createTasksCapability({ service, principal, logger })],
  });
  const ended = new Promise<void>((resolve) => {
    process.stdin.once('end', resolve);
    process.stdin.once('close', resolve);
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await server.serveStdio();
  err.write(
    `agency mcp: governed tasks on stdio (data root ${root.root}); decisions are signed as "${principal}"; models: ${models.join(', ')}; policy: ${operator.policy}; log: ${logFile}\n`,
  );
  await ended;
  await server.close();
  await service.close();
  return 0;
}
