import { errorMessage } from '../core/errors.ts';
import { createLogger, type Logger, type LogLevel } from '../obs/logger.ts';

/** Options for {@link cliLogger}. */
export type CliLoggerOptions = {
  /** The `component` field of every line: `runner`, `server`, `mcp`. */
  component: string;
  /** The `name` field of every line. */
  name: string;
  level?: LogLevel | undefined;
};

/**
 * The structured log of a CLI command: JSON lines to the file `to`, or to stderr when `to` is `-`. A command's
 * human output stays on stdout, apart from it.
 */
export function cliLogger(to: string, { component, name, level = 'info' }: CliLoggerOptions): Logger {
  const destination = to === '-' ? { write: (line: string) => process.stderr.write(line) } : to;
  try {
    return createLogger({ level, destination, name, component });
  } catch (error) {
    throw Object.assign(
      new Error(
        `--log-file ${to}: cannot be opened for writing (${(error as NodeJS.ErrnoException).code ?? errorMessage(error)}). ` +
          'Give a path in a writable directory, or - for stderr.',
      ),
      { exitCode: 2 },
    );
  }
}
