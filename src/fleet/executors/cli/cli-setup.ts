import type { CliExecutorOptions } from './cli-executor-options.ts';
import type { ExecutorSetup } from '../load-executor.ts';

/**
 * The options of a CLI executor from a worker's setup: its binary from the worker's environment (`CLAUDE_BIN`,
 * `CODEX_BIN`, `PATH`), and the network and extra paths its config's `sandbox` allows.
 */
export function cliOptionsOf({ config, hostEnv }: ExecutorSetup): CliExecutorOptions {
  return {
    searchPath: hostEnv['PATH'],
    allowNetwork: config.sandbox.network,
    readOnlyPaths: config.sandbox.readOnlyPaths,
    readWritePaths: config.sandbox.readWritePaths,
  };
}
