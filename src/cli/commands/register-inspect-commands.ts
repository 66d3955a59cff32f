import type { Command } from 'commander';
import type { WrapAction } from '../command-action.ts';
import type { Output } from '../render.ts';

// A command's module is loaded when its action runs, so `agency --help` and a usage error never load the task layer.
const commands = () => import('./inspect.ts');

/** Registers `agency init`. */
export function registerInitCommand(program: Command, wrap: WrapAction, out: Output): void {
  program
    .command('init')
    .description('Create a task folder: task/brief.md, progress/notes.md and progress/todo.md')
    .argument('<root>', 'the task folder to create')
    .option('--brief <text>', 'the goal and acceptance criteria to write into task/brief.md')
    .action(
      wrap(async (root: string, options: { brief?: string }) => (await commands()).initCommand(root, options, out)),
    );
}

/** Registers the read-only commands `agency tail`, `agency status` and `agency approvals`. */
export function registerInspectCommands(program: Command, wrap: WrapAction, out: Output): void {
  program
    .command('tail')
    .description('Print the event journal readably')
    .argument('<root>', 'the task folder')
    .option('-f, --follow', 'keep printing new events until the run finishes')
    .option('--json', 'print raw journal frames')
    .action(
      wrap(async (root: string, options: { follow?: boolean; json?: boolean }) =>
        (await commands()).tailCommand(root, options, out),
      ),
    );

  program
    .command('status')
    .description('Show where a run is: phase, status, budgets, pending approvals')
    .argument('<root>', 'the task folder')
    .option('--json', 'print machine-readable JSON')
    .action(
      wrap(async (root: string, options: { json?: boolean }) => (await commands()).statusCommand(root, options, out)),
    );

  program
    .command('approvals')
    .description('List pending approval requests')
    .argument('<root>', 'the task folder')
    .option('--json', 'print machine-readable JSON')
    .action(
      wrap(async (root: string, options: { json?: boolean }) =>
        (await commands()).approvalsCommand(root, options, out),
      ),
    );
}

/** Registers `agency approve` and `agency deny`, which write a pending request's decision file. */
export function registerDecisionCommands(program: Command, wrap: WrapAction, out: Output): void {
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
        wrap(async (root: string, id: string, options: { by?: string; reason?: string }) =>
          (await commands()).decideCommand(root, id, decision, options, out),
        ),
      );
  }
}

/** Registers `agency stop`. */
export function registerStopCommand(program: Command, wrap: WrapAction, out: Output): void {
  program
    .command('stop')
    .description('Ask a run to stop within a second, in any state (writes progress/STOP)')
    .argument('<root>', 'the task folder')
    .action(wrap(async (root: string) => (await commands()).stopCommand(root, out)));
}
