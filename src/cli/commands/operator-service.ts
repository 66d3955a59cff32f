import { extendCatalog, type ModelPrice } from '../../core/model-catalog.ts';
import { priceEntries } from '../../core/price-override.ts';
import { requireApprovalFor } from '../../policy/tool-rules.ts';
import type { AgencyRoot } from '../../config/agency-root.ts';
import type { Logger } from '../../obs/logger.ts';
import { createTaskService, type TaskService } from '../../service/task-service.ts';
import { checkTaskFolder } from '../../task/layout.ts';
import { createRunner } from '../../task/runner.ts';
import { createTaskFiles } from '../../task/fs/task-files.ts';
import { readTaskRequest } from '../../service/task-records.ts';
import { createRoleRegistry, type RoleRegistry } from '../../roles/registry.ts';
import type { Role } from '../../roles/role.ts';
import { roleTools } from '../role-options.ts';
import { type OperatorFlags, type OperatorSettings, readOperatorSettings } from '../operator-config.ts';
import { operatorPolicy, operatorWarnings } from '../operator-policy.ts';
import { type PromptFlags, promptOptions } from '../prompt-flags.ts';
import { cliTaskTools, narrowToOperator, readTaskConfig, taskConfigPath } from '../task-config.ts';

/** The options `agency serve` and `agency mcp` share: the models clients may use and how runs are held. */
export type ServiceCommandOptions = {
  model?: string;
  allowModel?: string[];
  allowAutoApprovals?: boolean;
  maxRuns?: number;
  price?: Array<[modelId: string, price: ModelPrice]>;
} & OperatorFlags &
  PromptFlags;

/**
 * Opens the task service over a data root as `agency serve` and `agency mcp` run it: runs are held to the operator's
 * settings, narrowed by each task's `task/agency.json`, exactly as `agency run` holds them.
 */
export async function openOperatorService(
  options: ServiceCommandOptions,
  root: AgencyRoot,
  logger: Logger,
): Promise<{ service: TaskService; models: string[]; operator: OperatorSettings }> {
  const operator = await readOperatorSettings(options);
  // One store for every run, checked now: a bad folder or pin stops the server before it serves.
  const prompts = promptOptions(options, operator.prompts);
  const models = [...new Set([options.model ?? defaultModel(), ...(options.allowModel ?? [])])];
  const catalog = options.price?.length ? extendCatalog(priceEntries(options.price)) : undefined;
  const runnerLogger = logger.child({ component: 'runner' });
  const roles = createRoleRegistry(root.root);
  const service = await createTaskService({
    root,
    models,
    roles,
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
      const role = await taskRole(roles, taskRoot);
      return createRunner({
        tools: (taskPaths) => roleTools(cliTaskTools(taskPaths, settings), role),
        ...(role ? { persona: role.persona } : {}),
        policy: operatorPolicy(settings).extend(taskRules),
        warnings: operatorWarnings(settings),
        logger: runnerLogger,
        ...prompts,
        ...(catalog ? { catalog } : {}),
      });
    },
  });
  return { service, models, operator };
}

// The role a task was created with (its request record says), read again for each run so a resumed run keeps it.
async function taskRole(roles: RoleRegistry, taskRoot: string): Promise<Role | undefined> {
  const request = await readTaskRequest(createTaskFiles(taskRoot), taskRoot);
  return request?.role === undefined ? undefined : roles.get(request.role);
}

function defaultModel(): string {
  const model = process.env.AGENCY_MODEL;
  if (!model)
    throw Object.assign(new Error('No model: pass --model <spec> (or set AGENCY_MODEL), e.g. --model openai:gpt-4o'), {
      exitCode: 2,
    });
  return model;
}
