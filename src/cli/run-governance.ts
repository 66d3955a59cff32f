import type { RunGovernance } from '../fleet/executors/load-executor.ts';
import { checkTaskFolder } from '../task/layout.ts';
import { readOperatorSettings } from './operator-config.ts';
import { operatorPolicy, operatorWarnings } from './operator-policy.ts';
import { narrowToOperator, readTaskConfig, taskConfigPath } from './task-config.ts';

/**
 * The rules `agency run` holds a task to, for a governed run that a daemon runs in its own process (the manager
 * director's): the operator's config and policy, narrowed by the task's `task/agency.json` (docs/policy.md).
 */
export const operatorGovernance: RunGovernance = async (root, { config, policy }) => {
  const paths = await checkTaskFolder(root);
  const operator = await readOperatorSettings({ ...(config ? { config } : {}), ...(policy ? { policy } : {}) });
  const run = narrowToOperator(operator, await readTaskConfig(paths), taskConfigPath(paths));
  return {
    policy: operatorPolicy(run),
    warnings: operatorWarnings(run),
    requireTools: run.requireTools,
    allow: run.allow,
    offline: run.offline,
    configFile: operator.where,
  };
};
