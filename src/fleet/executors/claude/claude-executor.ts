import { join } from 'node:path';
import { DEFAULT_SANDBOX_PATH } from '../../../sandbox/sandbox.ts';
import type { Executor } from '../executor.ts';
import type { CliExecutorOptions } from '../cli/cli-executor-options.ts';
import { createCliExecutor } from '../cli/cli-executor.ts';
import { claudeArgs } from './claude-args.ts';
import { createClaudeStream } from './claude-stream.ts';

/** Options for {@link createClaudeExecutor}. */
export type ClaudeExecutorOptions = CliExecutorOptions & {
  /** The model when the task names none (`sonnet`, `opus`, a full name). @default Claude Code's own default */
  model?: string | undefined;
  /** `--max-turns`. @default 50 */
  maxTurns?: number | undefined;
  /** More arguments, after agency's (e.g. `['--append-system-prompt', '…']`). @default [] */
  extraArgs?: readonly string[] | undefined;
};

/**
 * The Claude Code executor: `claude --print --output-format stream-json --verbose [--model M] --max-turns N
 * (--session-id ID | --resume ID) --dangerously-skip-permissions`, the prompt on stdin, inside the sandbox (see
 * docs/fleet.md, "Executors"). Claude Code's config and sessions live in `$HOME/.claude` (`CLAUDE_CONFIG_DIR`), with
 * `HOME` the caller's per-worker directory, else the session dir, so workers never share settings or sessions.
 *
 * @example
 * const executor = createClaudeExecutor({ bin: '/opt/agency-tools/node_modules/.bin/claude', maxTurns: 30 });
 * const ready = await executor.check(); // { ok: true, version: '2.1.332 (Claude Code)' }
 */
export function createClaudeExecutor({
  model: defaultModel,
  maxTurns = 50,
  extraArgs = [],
  ...options
}: ClaudeExecutorOptions = {}): Executor {
  return createCliExecutor(
    {
      kind: 'claude',
      name: 'Claude Code',
      command: 'claude',
      envVar: 'CLAUDE_BIN',
      invoke: (request, home) =>
        Promise.resolve({
          args: claudeArgs({
            sessionId: request.sessionId,
            resume: request.resume,
            model: request.model ?? defaultModel,
            maxTurns,
            extraArgs,
          }),
          env: {
            PATH: DEFAULT_SANDBOX_PATH,
            // No update checks, telemetry or error reports from inside a worker's sandbox.
            DISABLE_AUTOUPDATER: '1',
            CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
            ...request.env,
            HOME: home,
            CLAUDE_CONFIG_DIR: join(home, '.claude'),
          },
          stdin: request.prompt,
          message: `Claude Code ${request.resume ? 'resumes' : 'starts'} session ${request.sessionId}`,
        }),
      parse: createClaudeStream,
    },
    options,
  );
}
