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
  return createLogger({ level, destination, name, component });
}
