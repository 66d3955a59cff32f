import { AgencyError } from '../core/errors.ts';
import type { Sandbox, WrapOptions } from './sandbox.ts';
import { assertCommand, resolveWrapOptions } from './sandbox-paths.ts';

/** Where the unsandboxed warning goes. */
export type SandboxLogger = { warn(message: string): void };

/** Options for {@link createUnsandboxed}. */
export type UnsandboxedOptions = {
  /** Receives the warning logged on every call. @default console.warn */
  logger?: SandboxLogger;
};

/**
 * The explicit opt-out (`sandbox: 'none'`): commands run directly on the host with the host user's full access to
 * files, network and processes. Only the environment is still clean and the working directory still validated.
 * Every `wrap` logs a loud warning, so an unsandboxed deployment cannot go unnoticed. Staged files cannot be
 * placed without a sandbox, so `fileMounts` are refused.
 *
 * @example
 * const sandbox = createUnsandboxed({ logger }); // only where bubblewrap cannot run and the risk is accepted
 */
export function createUnsandboxed({
  logger = { warn: (message) => console.warn(message) },
}: UnsandboxedOptions = {}): Sandbox {
  return {
    name: 'none',
    wrap(command, options: WrapOptions) {
      assertCommand(command);
      if ((options.fileMounts ?? []).length > 0) {
        throw new AgencyError(
          'invalid_argument',
          'sandbox files (such as credentials) need a sandbox to be mounted; createUnsandboxed cannot place them. ' +
            'Use createBwrapSandbox, or pass the value through env.',
        );
      }
      const resolved = resolveWrapOptions(options);
      logger.warn(
        `agency: WARNING: running ${JSON.stringify(command[0])} UNSANDBOXED in ${resolved.workdir}: it can read and ` +
          "write every file this user can, reach the network and signal host processes. sandbox: 'none' was " +
          'configured explicitly; install bubblewrap and use the bwrap sandbox to isolate commands.',
      );
      const [file = '', ...args] = command;
      return { file, args, env: resolved.env, cwd: resolved.workdir };
    },
  };
}
