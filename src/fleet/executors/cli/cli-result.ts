import type { TaskErrorType } from '../../api/worker-schemas.ts';
import type { ExecutorResult } from '../executor.ts';
import type { CliRun } from './run-cli.ts';

/** What an executor made of a CLI's output: its answer so far, usage, and the error the CLI itself reported. */
export type ParsedRun = {
  output: string;
  usage?: { input: number; output: number } | undefined;
  costUsd?: number | undefined;
  error?: { type: TaskErrorType; message: string } | undefined;
};

// Seed 004 appendix B's stderr patterns, widened to the wording the CLIs and their APIs use, most specific first.
const PATTERNS: ReadonlyArray<[RegExp, TaskErrorType]> = [
  [/context (window|length)|prompt is too long|maximum context|too many tokens/i, 'context_window'],
  [
    /invalid (x-)?api[ _-]?key|incorrect api key|needs an api key|authentication[ _](error|failed)|401 unauthori[sz]ed/i,
    'invalid_api_key',
  ],
  [/rate[ _-]?limit|too many requests|\b429\b|overloaded/i, 'rate_limit'],
  [
    /network error|waiting for network|connection (refused|failed|reset)|econnrefused|econnreset|enotfound|etimedout|error sending request|socket hang up|fetch failed/i,
    'network',
  ],
  [/\btimed? ?out\b/i, 'timeout'],
];

/** The error type a CLI's message points to (seed 004 appendix B), or undefined when none matches. */
export function classifyErrorText(text: string): TaskErrorType | undefined {
  return PATTERNS.find(([pattern]) => pattern.test(text))?.[1];
}

/** The last few non-empty lines of a stream, for an error message. */
export function tailOf(text: string, lines = 3): string {
  return text.trim().split('\n').filter(Boolean).slice(-lines).join(' | ').slice(0, 600);
}

/**
 * The executor result of a CLI run: the sandbox's failure, a cancel or a timeout first (with the partial output), then
 * the error the CLI reported, then a non-zero exit classified from its stderr.
 */
export function cliResult(run: CliRun, parsed: ParsedRun, { name, timeoutMs }: { name: string; timeoutMs: number }) {
  const base: ExecutorResult = {
    exitCode: run.exitCode,
    output: parsed.output,
    stdout: run.stdout,
    stderr: run.stderr,
    ...(parsed.usage ? { usage: parsed.usage } : {}),
    ...(parsed.costUsd === undefined ? {} : { costUsd: parsed.costUsd }),
  };
  const error = errorOf(run, parsed, name, timeoutMs);
  return error ? { ...base, error } : base;
}

function errorOf(run: CliRun, parsed: ParsedRun, name: string, timeoutMs: number): ExecutorResult['error'] {
  if (run.outcome === 'sandbox_error') {
    return { type: 'sandbox_error', message: `The sandbox could not run ${name}: ${run.problem ?? 'unknown'}` };
  }
  if (run.outcome === 'cancelled')
    return { type: 'cancelled', message: `${name} was cancelled; its output so far is kept.` };
  if (run.outcome === 'timeout') {
    const last = parsed.error ? ` Its last error: ${parsed.error.message}` : '';
    return { type: 'timeout', message: `${name} exceeded its timeout of ${timeoutMs / 1000} s.${last}` };
  }
  if (parsed.error) return parsed.error;
  if (run.exitCode === 0) return undefined;
  const detail = tailOf(run.stderr) || tailOf(run.stdout) || 'no output';
  const type = classifyErrorText(run.stderr) ?? 'executor_error';
  return { type, message: `${name} exited with code ${String(run.exitCode)}: ${detail}` };
}
