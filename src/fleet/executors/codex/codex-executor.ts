import { join } from 'node:path';
import { DEFAULT_SANDBOX_PATH } from '../../../sandbox/sandbox.ts';
import type { CliExecutorOptions } from '../cli/cli-executor-options.ts';
import { createCliExecutor } from '../cli/cli-executor.ts';
import type { Executor, ExecutorRequest } from '../executor.ts';
import { codexArgs } from './codex-args.ts';
import { type CodexProvider, readThread, recordThread, writeCodexConfig } from './codex-home.ts';
import { createCodexStream } from './codex-stream.ts';
import { locateCodex } from './locate-codex.ts';

/** Options for {@link createCodexExecutor}. */
export type CodexExecutorOptions = CliExecutorOptions & {
  /** The model when the task names none. @default Codex's own default */
  model?: string | undefined;
  /**
   * The model endpoint, written to Codex's `config.toml` as its `model_provider`. @default `OPENAI_BASE_URL` from the
   * task's env as the base URL when set, else Codex's built-in OpenAI provider
   */
  provider?: CodexProvider | undefined;
  /** More arguments, after agency's (both `codex exec` and `codex exec resume` must accept them). @default [] */
  extraArgs?: readonly string[] | undefined;
};

/**
 * The Codex executor: `codex exec --json --skip-git-repo-check --dangerously-bypass-approvals-and-sandbox [--model M]
 * -` for a new session, `codex exec resume --json … <thread> -` to continue one, the prompt on stdin, inside the
 * sandbox (see docs/fleet.md, "Executors"). `CODEX_HOME` is `$HOME/.codex`, with `HOME` the caller's per-worker
 * directory (else the session dir); agency writes its `config.toml` before every run and records which Codex thread
 * each session runs in.
 *
 * @example
 * const executor = createCodexExecutor({ provider: { baseUrl: 'https://llm-proxy.internal/v1' }, model: 'gpt-5' });
 */
export function createCodexExecutor({
  model: defaultModel,
  provider,
  extraArgs = [],
  ...options
}: CodexExecutorOptions = {}): Executor {
  const codexHome = (home: string) => join(home, '.codex');
  const providerFor = (request: ExecutorRequest): CodexProvider | undefined => {
    const baseUrl = request.env['OPENAI_BASE_URL'];
    return provider ?? (baseUrl ? { baseUrl } : undefined);
  };
  return createCliExecutor(
    {
      kind: 'codex',
      name: 'Codex',
      command: 'codex',
      envVar: 'CODEX_BIN',
      locate: locateCodex,
      async invoke(request, home) {
        await writeCodexConfig(codexHome(home), providerFor(request));
        const thread = request.resume ? ((await readThread(codexHome(home), request.sessionId)) ?? 'last') : undefined;
        return {
          args: codexArgs({ resume: thread, model: request.model ?? defaultModel, extraArgs }),
          env: { PATH: DEFAULT_SANDBOX_PATH, ...request.env, HOME: home, CODEX_HOME: codexHome(home) },
          stdin: request.prompt,
          message:
            thread === undefined
              ? `Codex starts session ${request.sessionId}`
              : `Codex resumes session ${request.sessionId} (${thread === 'last' ? 'its latest thread' : `thread ${thread}`})`,
        };
      },
      parse: createCodexStream,
      async settle(request, run, home) {
        if (run.threadId) await recordThread(codexHome(home), request.sessionId, run.threadId);
      },
    },
    options,
  );
}
