import { closeSync, mkdirSync, openSync, readFileSync, renameSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';

/** Options for {@link rollingFile}. */
export type RollingFileOptions = {
  /** Lines per file before it rolls over. @default 1000 */
  maxLines?: number;
  /** @default 0o600 */
  mode?: number;
};

/**
 * A log destination that keeps the last lines only: lines are appended to `path` (synchronously, so the last ones
 * before a crash are on disk) until it holds `maxLines`, then it becomes `path.1` (replacing the one before) and a
 * new `path` starts. Between `maxLines` and twice that many lines are kept. Pass it to `createLogger`.
 *
 * @example
 * const logger = createLogger({ destination: rollingFile('agents/agent-01/agent.log') });
 */
export function rollingFile(path: string, { maxLines = 1000, mode = 0o600 }: RollingFileOptions = {}) {
  mkdirSync(dirname(path), { recursive: true });
  let lines = countLines(path);
  let fd = openSync(path, 'a', mode);
  return {
    write(chunk: string): void {
      writeSync(fd, chunk);
      for (let at = chunk.indexOf('\n'); at !== -1; at = chunk.indexOf('\n', at + 1)) lines++;
      if (lines < maxLines) return;
      closeSync(fd);
      renameSync(path, `${path}.1`);
      fd = openSync(path, 'a', mode);
      lines = 0;
    },
  };
}

function countLines(path: string): number {
  try {
    const text = readFileSync(path, 'utf8');
    return text.split('\n').length - 1;
  } catch {
    return 0;
  }
}
