import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { extendCatalog, type ModelPrice } from '../../core/model-catalog.ts';
import { priceEntries } from '../../core/price-override.ts';
import { createLogger } from '../../obs/logger.ts';
import { requireApprovalFor } from '../../policy/tool-rules.ts';
import { agencyRoot, agencyRootAt } from '../../config/agency-root.ts';
import { createTaskService } from '../../service/task-service.ts';
import { startServer } from '../../server/serve.ts';
import { checkTaskFolder } from '../../task/layout.ts';
import { createRunner } from '../../task/runner.ts';
import type { Output } from '../render.ts';
import { type OperatorFlags, readOperatorSettings } from '../operator-config.ts';
import { operatorPolicy, operatorWarnings } from '../operator-policy.ts';
import { cliTaskTools, narrowToOperator, readTaskConfig, taskConfigPath } from '../task-config.ts';

/** Options of `agency serve`. */
export type ServeCommandOptions = {
  root?: string;
  host?: string;
  port?: number;
  model?: string;
  allowModel?: string[];
  allowAutoApprovals?: boolean;
  maxRuns?: number;
  tls?: boolean;
  regenCert?: boolean;
  allowedHost?: string[];
  logFile?: string;
  logLevel?: 'info' | 'debug' | 'warn' | 'error';
  price?: Array<[modelId: string, price: ModelPrice]>;
} & OperatorFlags;

/**
 * `agency serve`: the HTTP API, the dashboard and the approvals inbox, over tasks kept under the data root. Runs are
 * held to the operator's settings, narrowed by each task's `task/agency.json`, exactly as `agency run` holds them.
 */
export async function serveCommand(options: ServeCommandOptions, out: Output): Promise<number> {
  const root = options.root ? agencyRootAt(options.root) : agencyRoot();
  const operator = await readOperatorSettings(options);
  const logger = createLogger({
    level: options.logLevel ?? 'info',
    destination: options.logFile ?? join(root.server, 'server.log'),
    name: 'agency-serve',
  });
  const models = [...new Set([options.model ?? defaultModel(), ...(options.allowModel ?? [])])];
  const catalog = options.price?.length ? extendCatalog(priceEntries(options.price)) : undefined;
  const service = await createTaskService({
    root,
    models,
    approvalModes: options.allowAutoApprovals ? ['file', 'auto'] : ['file'],
    maxConcurrentRuns: options.maxRuns ?? 4,
    logger,
    async runnerFor(taskRoot) {
      const paths = await checkTaskFolder(taskRoot);
      const settings = narrowToOperator(operator, await readTaskConfig(paths), taskConfigPath(paths));
      const taskRules =
        settings.requireTools.length > 0
          ? [requireApprovalFor({ id: 'task:require-tools', tools: settings.requireTools })]
          : [];
      return createRunner({
        tools: (taskPaths) => cliTaskTools(taskPaths, settings),
        policy: operatorPolicy(settings).extend(taskRules),
        warnings: operatorWarnings(settings),
        ...(catalog ? { catalog } : {}),
      });
    },
  });
  const dashboard = join(import.meta.dirname, '../../../web/dist');
  const server = await startServer({
    root,
    service,
    logger,
    version: '0.1.0',
    policy: operator.policy,
    ...(options.host ? { host: options.host } : {}),
    ...(options.port !== undefined ? { port: options.port } : {}),
    ...(options.tls ? { tls: true } : {}),
    ...(options.regenCert ? { regenerateCertificate: true } : {}),
    ...(options.allowedHost ? { allowedHosts: options.allowedHost } : {}),
    ...(existsSync(dashboard) ? { dashboardDir: dashboard } : {}),
  });
  out.write(`agency serve: ${server.url}  (data root ${root.root})\n`);
  if (server.newToken) {
    out.write(`Token (shown once; kept in ${server.tokenFile}): ${server.newToken}\n`);
    out.write(`Open the dashboard: ${server.url}/?token=${server.newToken}\n`);
  } else if (server.tokenFile) out.write(`Token: in ${server.tokenFile}\n`);
  else out.write('Token: from AGENCY_TOKEN\n');
  if (server.certFile) out.write(`TLS: self-signed certificate ${server.certFile}\n`);
  out.write(
    `Models: ${models.join(', ')}; policy: ${operator.policy}; log: ${options.logFile ?? join(root.server, 'server.log')}\n`,
  );
  await new Promise<void>((resolve) => {
    const stop = () => resolve();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  out.write('Stopping: runs stop at their next boundary and resume on the next start…\n');
  await server.close();
  return 0;
}

function defaultModel(): string {
  const model = process.env.AGENCY_MODEL;
  if (!model)
    throw Object.assign(new Error('No model: pass --model <spec> (or set AGENCY_MODEL), e.g. --model openai:gpt-4o'), {
      exitCode: 2,
    });
  return model;
}
