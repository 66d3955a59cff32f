import { rm } from 'node:fs/promises';
import { Command, InvalidArgumentError, Option } from 'commander';
import { AgencyError } from '../core/errors.ts';
import { taskPaths } from '../task/layout.ts';
import {
  approvalsCommand,
  decideCommand,
  initCommand,
  statusCommand,
  stopCommand,
  tailCommand,
} from './commands/inspect.ts';
import { runCommand } from './commands/run.ts';
import { EXIT } from './exit-codes.ts';
import type { Output } from './render.ts';

const USAGE_CODES = new Set([
  'invalid_argument',
  'invalid_config',
  'invalid_model_spec',
  'missing_api_key',
  'task_folder_invalid',
  'state_corrupt',
  'cassette_not_found',
  'cassette_corrupt',
  'approval_not_found',
  'approval_invalid',
]);

function positiveInteger(value: string): number {
  const number = Number(value);
  if (!Number.isInteger(number) || number <= 0) throw new InvalidArgumentError('must be a positive whole number');
  return number;
}

function positiveNumber(value: string): number {
  const number = Number(value);
  if (!Number.isFinite(number) || number <= 0) throw new InvalidArgumentError('must be a positive number');
  return number;
}

/** Builds the `agency` command line. `run(code)` receives each command's exit code. */
export function buildProgram(out: Output, err: Output, setExit: (code: number) => void): Command {
  const program = new Command()
    .name('agency')
    .description('Run governed agent tasks in a task/ + progress/ folder: plan, ask, act, verify, with a paper trail.')
    .version('0.1.0')
    .showHelpAfterError()
    // Subcommands inherit this: usage errors reach main() as exceptions, never as process.exit().
    .exitOverride()
    .configureOutput({ writeOut: (text) => out.write(text), writeErr: (text) => err.write(text) });

  const wrap =
    <A extends unknown[]>(action: (...args: A) => Promise<number>) =>
    async (...args: A) => {
      try {
        setExit(await action(...args));
      } catch (error) {
        const code = (error as { exitCode?: number }).exitCode;
        const agency = AgencyError.isInstance(error) ? error : undefined;
        err.write(`agency: ${(error as Error).message}\n`);
        setExit(
          code ??
            (agency?.code === 'task_locked'
              ? EXIT.locked
              : agency && USAGE_CODES.has(agency.code)
                ? EXIT.usage
                : EXIT.failed),
        );
      }
    };

  program
    .command('init')
    .description('Create a task folder: task/brief.md, progress/notes.md and progress/todo.md')
    .argument('<root>', 'the task folder to create')
    .option('--brief <text>', 'the goal and acceptance criteria to write into task/brief.md')
    .action(wrap((root: string, options: { brief?: string }) => initCommand(root, options, out)));

  const runOptions = (command: Command) =>
    command
      .option(
        '--model <spec>',
        'openai:<model>, openai-chat:<model>, anthropic:<model>, openai-compatible:<url>#<model> or replay:<cassette>',
      )
      .addOption(
        new Option(
          '--approvals <mode>',
          'file: wait for decision files; auto: approve automatically, still writing both files',
        ).choices(['file', 'auto']),
      )
      .option('--max-steps <n>', 'the most model calls', positiveInteger)
      .option('--max-cost <usd>', 'the most dollars to spend', positiveNumber)
      .option('--max-tokens <n>', 'the most tokens to spend', positiveInteger)
      .option('--max-time <seconds>', 'the most wall-clock seconds', positiveNumber)
      .addOption(
        new Option('--view <view>', 'how much of the result to print')
          .choices(['minimal', 'summary', 'full'])
          .default('summary'),
      )
      .option(
        '--record <cassette>',
        'record every model call to a cassette, to replay later with --model replay:<cassette>',
      )
      .option('--json', 'print journal frames as NDJSON, then the result as one JSON line');

  runOptions(
    program
      .command('run')
      .description('Start a task and run it to the end (exit codes: docs/cli.md)')
      .argument('<root>', 'the task folder'),
  ).action(wrap((root: string, options) => runCommand(root, options, 'start', out)));
  runOptions(
    program
      .command('resume')
      .description('Continue a stopped or crashed run from its folder')
      .argument('<root>', 'the task folder'),
  ).action(
    wrap(async (root: string, options) => {
      if (
        await rm(taskPaths(root).stop).then(
          () => true,
          () => false,
        )
      )
        out.write('Removed progress/STOP to resume the run.\n');
      return runCommand(root, options, 'resume', out);
    }),
  );

  program
    .command('tail')
    .description('Print the event journal readably')
    .argument('<root>', 'the task folder')
    .option('-f, --follow', 'keep printing new events until the run finishes')
    .option('--json', 'print raw journal frames')
    .action(wrap((root: string, options: { follow?: boolean; json?: boolean }) => tailCommand(root, options, out)));

  program
    .command('status')
    .description('Show where a run is: phase, status, budgets, pending approvals')
    .argument('<root>', 'the task folder')
    .option('--json', 'print machine-readable JSON')
    .action(wrap((root: string, options: { json?: boolean }) => statusCommand(root, options, out)));

  program
    .command('approvals')
    .description('List pending approval requests')
    .argument('<root>', 'the task folder')
    .option('--json', 'print machine-readable JSON')
    .action(wrap((root: string, options: { json?: boolean }) => approvalsCommand(root, options, out)));

  for (const [name, decision] of [
    ['approve', 'approved'],
    ['deny', 'denied'],
  ] as const) {
    program
      .command(name)
      .description(`${name === 'approve' ? 'Approve' : 'Deny'} a pending request (writes its decision file)`)
      .argument('<root>', 'the task folder')
      .argument('<id>', 'the request id, e.g. req_01J…')
      .option('--by <name>', 'who decides (default: $USER)')
      .option('--reason <text>', 'why, kept in the decision file')
      .action(
        wrap((root: string, id: string, options: { by?: string; reason?: string }) =>
          decideCommand(root, id, decision, options, out),
        ),
      );
  }

  program
    .command('stop')
    .description('Ask a run to stop at its next step boundary (writes progress/STOP)')
    .argument('<root>', 'the task folder')
    .action(wrap((root: string) => stopCommand(root, out)));

  return program;
}

/** Runs the CLI with `argv` and returns the exit code. */
export async function main(argv: readonly string[]): Promise<number> {
  let code: number = EXIT.ok;
  const out: Output = {
    write: (text) => void process.stdout.write(text),
    isTTY: process.stdout.isTTY === true,
    columns: process.stdout.columns,
  };
  const err: Output = { write: (text) => void process.stderr.write(text), isTTY: process.stderr.isTTY === true };
  const program = buildProgram(out, err, (exit) => {
    code = exit;
  });
  try {
    await program.parseAsync([...argv], { from: 'user' });
  } catch (error) {
    const exit = (error as { exitCode?: number; code?: string }).exitCode;
    // --help and --version exit with 0; unknown options and bad values with 2.
    return exit === 0 ? EXIT.ok : EXIT.usage;
  }
  return code;
}
