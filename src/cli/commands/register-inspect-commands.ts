import type { Command } from 'commander';
import type { WrapAction } from '../command-action.ts';
import type { Output } from '../render.ts';
import { addServerOptions, checkLocal, type ServerFlags } from './register-server-options.ts';

// A command's module is loaded when its action runs, so `agency --help` and a usage error never load the task layer.
// With --server, `remote-inspect.ts` loads the client, and the task layer stays unloaded.
const commands = () => import('./inspect.ts');
const remote = () => import('./remote-inspect.ts');
const ROOT = 'the task folder (with --server: a task id)';

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
export function registerInspectCommands(program: Command, wrap: WrapAction, out: Output, err: Output): void {
  type Flags = ServerFlags & { follow?: boolean; json?: boolean };
  addServerOptions(
    program
      .command('tail')
      .description('Print the event journal readably')
      .argument('<root>', ROOT)
      .option('-f, --follow', 'keep printing new events until the run finishes')
      .option('--json', 'print raw journal frames'),
  ).action(
    wrap(async (root: string, options: Flags) => {
      if (options.server !== undefined) return (await remote()).remoteTailCommand(root, options, out, err);
      checkLocal(options);
      return (await commands()).tailCommand(root, options, out);
    }),
  );

  addServerOptions(
    program
      .command('status')
      .description('Show where a run is: phase, status, budgets, pending approvals')
      .argument('<root>', ROOT)
      .option('--json', 'print machine-readable JSON'),
  ).action(
    wrap(async (root: string, options: Flags) => {
      if (options.server !== undefined) return (await remote()).remoteStatusCommand(root, options, out);
      checkLocal(options);
      return (await commands()).statusCommand(root, options, out);
    }),
  );

  addServerOptions(
    program
      .command('approvals')
      .description('List pending approval requests')
      .argument('[root]', 'the task folder (with --server: a task id, or none for every task)')
      .option('--json', 'print machine-readable JSON'),
    'list the pending requests of an agency server: [root] is a task id',
  ).action(
    wrap(async (root: string | undefined, options: Flags) => {
      if (options.server !== undefined) return (await remote()).remoteApprovalsCommand(root, options, out);
      checkLocal(options);
      if (root === undefined)
        throw Object.assign(new Error('approvals: <root> is missing: give the task folder'), { exitCode: 2 });
      return (await commands()).approvalsCommand(root, options, out);
    }),
  );
}

/** Registers `agency approve` and `agency deny`, which write a pending request's decision file. */
export function registerDecisionCommands(program: Command, wrap: WrapAction, out: Output): void {
  for (const [name, decision] of [
    ['approve', 'approved'],
    ['deny', 'denied'],
  ] as const) {
    addServerOptions(
      program
        .command(name)
        .description(`${name === 'approve' ? 'Approve' : 'Deny'} a pending request (writes its decision file)`)
        .argument('<root>', ROOT)
        .argument('<id>', 'the request id, e.g. req_01J…')
        .option('--by <name>', 'who decides (default: $USER; with --server, the name of the token, always)')
        .option('--reason <text>', 'why, kept in the decision file'),
    ).action(
      wrap(async (root: string, id: string, options: ServerFlags & { by?: string; reason?: string }) => {
        if (options.server !== undefined) return (await remote()).remoteDecideCommand(root, id, decision, options, out);
        checkLocal(options);
        return (await commands()).decideCommand(root, id, decision, options, out);
      }),
    );
  }
}

/** Registers `agency stop`. */
export function registerStopCommand(program: Command, wrap: WrapAction, out: Output): void {
  addServerOptions(
    program
      .command('stop')
      .description('Ask a run to stop within a second, in any state (writes progress/STOP)')
      .argument('<root>', ROOT),
  ).action(
    wrap(async (root: string, options: ServerFlags) => {
      if (options.server !== undefined) return (await remote()).remoteStopCommand(root, options, out);
      checkLocal(options);
      return (await commands()).stopCommand(root, out);
    }),
  );
}
