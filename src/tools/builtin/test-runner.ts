import { z } from 'zod';
import { AgencyError } from '../../core/errors.ts';
import { type RunSandboxedResult, runSandboxed } from '../../sandbox/run-sandboxed.ts';
import type { Sandbox } from '../../sandbox/sandbox.ts';
import { defineTool, type Tool } from '../define-tool.ts';
import {
  type ExecEnvironmentOptions,
  type RunEnvironment,
  type RunReport,
  resolveSandbox,
  runEnvironment,
  runReport,
} from './exec-options.ts';
import { positiveLimit } from './option-checks.ts';
import { formatTestCounts, lastLines, parseTestCounts } from './test-summary.ts';

/** Options for {@link createTestRunnerTool}. */
export type TestRunnerToolOptions = ExecEnvironmentOptions & {
  /** The test command, as an argv array, e.g. `['node', '--test']`. The model cannot change it. */
  command: readonly string[];
  /**
   * Lets the model narrow the run with a `filter` string, turned into arguments appended to `command`. Without it,
   * the tool takes no arguments. Filters that start with `-`, hold control characters or exceed 200 characters are
   * refused, so a filter can never become an option.
   * @example (filter) => ['--test-name-pattern', filter]
   */
  filterArgs?: (filter: string) => readonly string[];
  /** @default 120000 */
  timeoutMs?: number;
  /** Bytes of stdout and of stderr kept; runners print their summary last, so keep this generous. @default 4194304 */
  outputLimitBytes?: number;
  /** Non-empty lines in `output_tail`. @default 40 */
  tailLines?: number;
  /** @default 2000 */
  killGraceMs?: number;
};

/** What `test_runner` returns. The governed runner's Verify phase reads `passed` and `summary`. */
export type TestRunnerOutput = RunReport & {
  /** Exit code 0 and no timeout. */
  passed: boolean;
  exit_code: number | null;
  /** "12 passed, 1 failed" when the runner's output could be parsed, otherwise the last lines of output. */
  summary: string;
  /** The last `tailLines` non-empty lines of stdout then stderr. */
  output_tail: string;
  timed_out: boolean;
  /** Output went over `outputLimitBytes` and was cut; the summary may be missing. */
  truncated: boolean;
};

const FILTER = /^(?!-)[^\x00-\x1f\x7f]{1,200}$/;
const MAX_TAIL_CHARS = 8_000;

/**
 * `test_runner` (effects `exec`, not idempotent): runs the configured test command in the sandbox, in the configured
 * workdir, and reports whether it passed with a parsed summary (node --test, vitest, jest, pytest, cargo, mocha,
 * go test -v). The model cannot change the command; it may pass a `filter` only when `filterArgs` is configured.
 *
 * @example
 * const tests = createTestRunnerTool({ command: ['node', '--test'], workdir: '/runs/t1/progress/artifacts' });
 */
export function createTestRunnerTool(
  options: TestRunnerToolOptions,
): Tool<{ filter?: string | undefined }, TestRunnerOutput> {
  const { command, filterArgs, timeoutMs = 120_000, outputLimitBytes = 4 * 1024 * 1024 } = options;
  const { tailLines = 40, killGraceMs = 2_000 } = options;
  if (!Array.isArray(command) || command.length === 0 || command.some((part) => typeof part !== 'string')) {
    throw new AgencyError('invalid_argument', "test_runner: command must be a non-empty argv, e.g. ['npm', 'test']", {
      details: { field: 'command' },
    });
  }
  for (const [name, value] of Object.entries({ timeoutMs, outputLimitBytes, tailLines })) {
    positiveLimit('test_runner', name, value);
  }
  const sandbox: Sandbox = resolveSandbox(options.sandbox, options.logger);
  const environment = runEnvironment(options);
  const input = filterArgs
    ? z.object({ filter: z.string().regex(FILTER, 'must be 1-200 characters, not start with "-"').optional() })
    : z.object({});
  return defineTool({
    name: 'test_runner',
    description:
      `Run the project's tests (${command.join(' ')}) and report whether they passed, with a summary and the end ` +
      `of the output.${filterArgs ? ' Pass "filter" to run only matching tests.' : ' It takes no arguments.'}`,
    input,
    effects: 'exec',
    idempotent: false,
    timeoutMs: timeoutMs + killGraceMs + 5_000,
    execute: async (args: { filter?: string | undefined }, { signal }) => {
      const extra = args.filter !== undefined && filterArgs ? filterArgs(args.filter) : [];
      const result = await runSandboxed(sandbox, [...command, ...extra], {
        ...environment,
        timeoutMs,
        killGraceMs,
        stdoutLimitBytes: outputLimitBytes,
        stderrLimitBytes: outputLimitBytes,
        signal,
      });
      return report(result, { timeoutMs, tailLines, environment });
    },
  });
}

function report(
  result: RunSandboxedResult,
  { timeoutMs, tailLines, environment }: { timeoutMs: number; tailLines: number; environment: RunEnvironment },
) {
  const output = [result.stdout, result.stderr].filter((part) => part !== '').join('\n');
  const counts = parseTestCounts(output);
  const tail = lastLines(output, tailLines);
  const sofar = counts ? ` (${formatTestCounts(counts)} so far)` : '';
  const diskFull = result.limitsReached.includes('diskBytes');
  const summary = result.timedOut
    ? `timed out after ${timeoutMs} ms${sofar}`
    : diskFull
      ? `stopped: the tests wrote more than the sandbox's disk limit${sofar}`
      : counts
        ? formatTestCounts(counts)
        : lastLines(output, 5) || `exit code ${String(result.exitCode)}, no output`;
  return {
    passed: result.exitCode === 0 && !result.timedOut && !diskFull,
    exit_code: result.exitCode,
    summary,
    output_tail: tail.length > MAX_TAIL_CHARS ? tail.slice(-MAX_TAIL_CHARS) : tail,
    timed_out: result.timedOut,
    truncated: result.stdoutTruncated || result.stderrTruncated,
    ...runReport(result, environment),
  };
}
