// The manager director's executor as `agency worker` loads it (see load-executor.ts).
import { loadManagerConfig } from '../../directors/manager/manager-config.ts';
import type { Executor } from '../executor.ts';
import type { ExecutorSetup } from '../load-executor.ts';
import { createManagerExecutor } from './manager-executor.ts';

/**
 * The manager's executor: the governed runner with the delegation tools, held to the settings of the manager's
 * `config.yaml` (read again here: the worker's config carries only what every worker has).
 */
export async function createExecutor(setup: ExecutorSetup): Promise<Executor> {
  const { manager } = await loadManagerConfig(setup.config.file);
  return createManagerExecutor({ settings: manager, model: setup.config.model });
}
