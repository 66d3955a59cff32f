// The built-in executor as a worker loads it (see load-executor.ts).
import type { Executor } from '../executor.ts';
import type { ExecutorSetup } from '../load-executor.ts';
import { createBuiltinExecutor } from './builtin-executor.ts';

/**
 * A worker's built-in executor: agency's governed runner with its config's model; approvals wait for
 * `agency approve` in the turn's task root (`file`), as from the CLI.
 */
export function createExecutor(setup: ExecutorSetup): Executor {
  return createBuiltinExecutor({
    model: setup.config.model,
    approvals: 'file',
    role: setup.config.role,
    agencyRoot: setup.root.root,
  });
}
