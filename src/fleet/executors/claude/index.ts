// The Claude Code executor as a worker loads it (see load-executor.ts).
import type { Executor } from '../executor.ts';
import { cliOptionsOf } from '../cli/cli-setup.ts';
import type { ExecutorSetup } from '../load-executor.ts';
import { createClaudeExecutor } from './claude-executor.ts';

/** A worker's Claude Code executor: its config's model and `max_turns`, its sandbox settings, `CLAUDE_BIN`. */
export function createExecutor(setup: ExecutorSetup): Executor {
  return createClaudeExecutor({
    ...cliOptionsOf(setup),
    bin: setup.hostEnv['CLAUDE_BIN'],
    model: setup.config.model,
    maxTurns: setup.config.maxTurns,
  });
}
