import type { Redactor } from '../../core/redact.ts';
import type { Logger } from '../../obs/logger.ts';
import type { LogLine } from './task-record.ts';

/** The worker's lifecycle lines: start-up, tasks started and finished, errors. Never an executor's output. */
export type LifecycleLog = {
  info(message: string, fields?: Record<string, unknown>): LogLine;
  warn(message: string, fields?: Record<string, unknown>): LogLine;
  error(message: string, fields?: Record<string, unknown>): LogLine;
  /** The last lines, oldest first, for `GET /status`. */
  recent(): LogLine[];
};

/**
 * Creates the lifecycle log: each line, redacted, goes to the JSON log (`agent.log`) and to a rolling buffer of the
 * last `size` lines that `/status` shows.
 */
export function createLifecycleLog({
  logger,
  redactor,
  now,
  size = 50,
}: {
  logger: Logger;
  redactor: Redactor;
  now: () => number;
  size?: number;
}): LifecycleLog {
  const lines: LogLine[] = [];
  const add = (level: 'info' | 'warn' | 'error', message: string, fields: Record<string, unknown> = {}) => {
    const line = { time: new Date(now()).toISOString(), level, message: redactor.redactText(message) };
    lines.push(line);
    if (lines.length > size) lines.shift();
    logger[level](fields, line.message);
    return line;
  };
  return {
    info: (message, fields) => add('info', message, fields),
    warn: (message, fields) => add('warn', message, fields),
    error: (message, fields) => add('error', message, fields),
    recent: () => [...lines],
  };
}
