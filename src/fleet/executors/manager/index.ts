// The manager director's executor as `agency worker` loads it (see load-executor.ts).
import { AgencyError } from '../../../core/errors.ts';
import { loadManagerConfig } from '../../directors/manager/manager-config.ts';
import type { Executor } from '../executor.ts';
import type { ExecutorSetup } from '../load-executor.ts';
import { createManagerExecutor } from './manager-executor.ts';

/**
 * The manager's executor: the governed runner with the delegation tools, held to the settings of the manager's
 * `config.yaml` (read again here: the worker's config carries only what every worker has).
 */
export async function createExecutor(setup: ExecutorSetup): Promise<Executor> {
  if (!setup.governance)
    throw new AgencyError(
      'invalid_config',
      `executor manager needs the operator's rules for its governed runs; start it with agency worker (${setup.config.file})`,
      { details: { field: 'executor' } },
    );
  // The manager reaches its model and the workers' HTTP on loopback through the host's network, which its sandbox
  // shares: with the network denied it could do nothing.
  if (!setup.config.sandbox.network)
    throw new AgencyError(
      'invalid_config',
      `executor manager needs the network (its model, and the workers on loopback), but ${setup.config.file} denies ` +
        'its sandbox the network; allow it (sandbox.network: true) or run another executor',
      { details: { field: 'sandbox.network' } },
    );
  const { manager } = await loadManagerConfig(setup.config.file);
  return createManagerExecutor({ settings: manager, model: setup.config.model, governance: setup.governance });
}
