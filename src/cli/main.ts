import { Command } from 'commander';
import { createWrapAction } from './command-action.ts';
import {
  registerDecisionCommands,
  registerInitCommand,
  registerInspectCommands,
  registerStopCommand,
} from './commands/register-inspect-commands.ts';
import { registerEvalCommand } from './commands/register-eval-command.ts';
import { registerMemoryCommand } from './commands/register-memory-command.ts';
import { registerPromptsCommand } from './commands/register-prompts-command.ts';
import { registerRunCommands } from './commands/register-run-commands.ts';
import {
  registerFleetCommands,
  registerTaskCommand,
  registerValidateCommand,
  registerWorkerCommand,
  registerDirectorCommand,
} from './commands/register-fleet-commands.ts';
import { registerMcpCommand, registerServeCommand } from './commands/register-serve-command.ts';
import { EXIT } from './exit-codes.ts';
import type { Output } from './render.ts';

/** Builds the `agency` command line. `setExit(code)` receives each command's exit code. */
export function buildProgram(out: Output, err: Output, setExit: (code: number) => void): Command {
  const program = new Command()
    .name('agency')
    .description('Run governed agent tasks in a task/ + progress/ folder: plan, ask, act, verify, with a paper trail.')
    .version('0.1.0')
    .showHelpAfterError()
    // Subcommands inherit this: usage errors reach main() as exceptions, never as process.exit().
    .exitOverride()
    .configureOutput({ writeOut: (text) => out.write(text), writeErr: (text) => err.write(text) });

  const wrap = createWrapAction(err, setExit);
  // Registration order is the order `agency --help` lists the commands in.
  registerInitCommand(program, wrap, out);
  registerRunCommands(program, wrap, out, err);
  registerInspectCommands(program, wrap, out, err);
  registerDecisionCommands(program, wrap, out);
  registerStopCommand(program, wrap, out);
  registerMemoryCommand(program, wrap, out);
  registerPromptsCommand(program, wrap, out, err);
  registerServeCommand(program, wrap, out);
  registerMcpCommand(program, wrap, err);
  registerWorkerCommand(program, wrap, out, err);
  registerDirectorCommand(program, wrap, out, err);
  registerValidateCommand(program, wrap, out, err);
  registerTaskCommand(program, wrap, out, err);
  registerFleetCommands(program, wrap, out);
  registerEvalCommand(program, wrap, out);
  return program;
}

/** Runs the CLI with `argv` and returns the exit code. */
export async function main(argv: readonly string[]): Promise<number> {
  const closed = onClosedPipe(RUNNING_COMMANDS.has(argv[0] ?? ''));
  let code: number = EXIT.ok;
  const out: Output = {
    write: (text) => void (closed.stdout || process.stdout.write(text)),
    isTTY: process.stdout.isTTY === true,
    colors: process.stdout.isTTY === true && process.stdout.hasColors(),
    columns: process.stdout.columns,
  };
  const err: Output = {
    write: (text) => void (closed.stderr || process.stderr.write(text)),
    isTTY: process.stderr.isTTY === true,
    colors: process.stderr.isTTY === true && process.stderr.hasColors(),
    columns: process.stderr.columns,
  };
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

// Commands that drive a run: a closed pipe must not abandon it.
const RUNNING_COMMANDS = new Set(['run', 'resume', 'task', 'eval']);

// `agency tail R | head -1`: once the reader is gone, there is nobody to tell; end at once, without a stack trace.
// `agency run … | head -1` is different: the run goes on to its end (the journal has every event), its output is
// dropped, and the exit code is the run's.
function onClosedPipe(keepRunning: boolean): { stdout: boolean; stderr: boolean } {
  const closed = { stdout: false, stderr: false };
  for (const [name, stream] of [
    ['stdout', process.stdout],
    ['stderr', process.stderr],
  ] as const) {
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EPIPE') throw error;
      if (!keepRunning) process.exit(EXIT.ok);
      closed[name] = true;
    });
  }
  return closed;
}
