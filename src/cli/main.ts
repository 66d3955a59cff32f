import { Command } from 'commander';
import { createWrapAction } from './command-action.ts';
import {
  registerDecisionCommands,
  registerInitCommand,
  registerInspectCommands,
  registerStopCommand,
} from './commands/register-inspect-commands.ts';
import { registerRunCommands } from './commands/register-run-commands.ts';
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
  registerRunCommands(program, wrap, out);
  registerInspectCommands(program, wrap, out);
  registerDecisionCommands(program, wrap, out);
  registerStopCommand(program, wrap, out);
  return program;
}

/** Runs the CLI with `argv` and returns the exit code. */
export async function main(argv: readonly string[]): Promise<number> {
  endQuietlyOnClosedPipe();
  let code: number = EXIT.ok;
  const out: Output = {
    write: (text) => void process.stdout.write(text),
    isTTY: process.stdout.isTTY === true,
    colors: process.stdout.isTTY === true && process.stdout.hasColors(),
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

// `agency tail R | head -1`: once the reader is gone, there is nobody to tell; end at once, without a stack trace.
function endQuietlyOnClosedPipe(): void {
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EPIPE') process.exit(EXIT.ok);
      throw error;
    });
  }
}
