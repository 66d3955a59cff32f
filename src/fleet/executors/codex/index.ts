// The Codex executor as a worker loads it (see load-executor.ts).
import type { Executor } from '../executor.ts';
import { cliOptionsOf } from '../cli/cli-setup.ts';
import type { ExecutorSetup } from '../load-executor.ts';
import { createCodexExecutor } from './codex-executor.ts';

/**
 * A worker's Codex executor: its config's model, its sandbox settings, `CODEX_BIN`; the model endpoint comes from
 * `OPENAI_BASE_URL` in the executor's environment (the config's `env`).
 */
export function createExecutor(setup: ExecutorSetup): Executor {
  return createCodexExecutor({ ...cliOptionsOf(setup), bin: setup.hostEnv['CODEX_BIN'], model: setup.config.model });
}
