import pino, { type DestinationStream, type Logger as PinoLogger } from 'pino';
import { defaultRedactor, type Redactor } from '../core/redact.ts';

/** Log levels, from the most to the least severe. `silent` logs nothing. */
export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

/** agency's logger: a pino logger whose every line has passed through a redactor. */
export type Logger = PinoLogger;

/** Where log lines go: a file path (created with its directory, appended to) or anything with `write(line)`. */
export type LogDestination = string | { write(line: string): unknown };

/** Options for {@link createLogger}. */
export type LoggerOptions = {
  /** @default 'info' */
  level?: LogLevel;
  /** @default standard output */
  destination?: LogDestination;
  /** Scrubs each line before it is written. @default defaultRedactor */
  redactor?: Redactor;
  /** Added to every line as `name`. */
  name?: string;
  /**
   * Added to every line as `component`: which part of agency wrote it (`runner`, `server`, `mcp`, `worker`,
   * `director:<name>`). A child logger (`logger.child({ component: 'runner' })`) names its own.
   */
  component?: string;
  /** The clock for each line's `time` (ISO 8601). @default Date.now */
  now?: () => number;
};

/**
 * Creates a JSON-lines logger on pino. Every line is parsed, deep-redacted (sensitive keys such as `authorization`
 * hidden whole, secret-shaped strings and registered credentials replaced in values and keys, in any spelling the
 * redactor knows) and written again, so messages, bound fields, serialized errors with their causes and stacks, and
 * nested fields are all covered. Nothing in a line is cut before it is redacted. File destinations are written synchronously, so the
 * last lines before a crash are on disk. Human-readable CLI output is separate and does not go through here.
 *
 * @example
 * const logger = createLogger({ level: 'debug', destination: 'logs/agency.jsonl', component: 'runner' });
 * logger.info({ url: 'https://api.example.com/?api_key=abc' }, 'fetching'); // api_key=[REDACTED:url-param]
 */
export function createLogger({
  level = 'info',
  destination,
  redactor = defaultRedactor,
  name,
  component,
  now = Date.now,
}: LoggerOptions = {}): Logger {
  const target: { write(line: string): unknown } =
    typeof destination === 'string'
      ? pino.destination({ dest: destination, sync: true, mkdir: true, append: true })
      : (destination ?? pino.destination({ dest: 1, sync: true }));
  const logger = pino(
    {
      level,
      ...(name === undefined ? {} : { name }),
      timestamp: () => `,"time":"${new Date(now()).toISOString()}"`,
      serializers: { err: pino.stdSerializers.err, error: pino.stdSerializers.err },
    },
    redactingStream(target, redactor),
  );
  return component === undefined ? logger : logger.child({ component });
}

/**
 * Wraps a stream of JSON lines so that each line is redacted before it reaches `target`. A line that is not JSON is
 * redacted as text.
 */
export function redactingStream(target: { write(line: string): unknown }, redactor: Redactor): DestinationStream {
  return {
    write(chunk: string) {
      const lines = chunk.split('\n');
      const out = lines.map((line) => (line === '' ? line : redactLine(line, redactor)));
      target.write(out.join('\n'));
    },
  };
}

function redactLine(line: string, redactor: Redactor): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch {
    return redactor.redactText(line);
  }
  return JSON.stringify(redactor.redact(parsed));
}
