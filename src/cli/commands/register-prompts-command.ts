import type { Command } from 'commander';
import type { WrapAction } from '../command-action.ts';
import type { Output } from '../render.ts';
import { collect } from './register-run-commands.ts';

// prompts.ts opens a store (a folder, node:sqlite or pg); it is loaded when a prompts command runs.
const commands = () => import('./prompts.ts');

function addStoreOptions(command: Command): Command {
  return command
    .option('--dir <folder>', 'a folder of prompt versions (<id>/<version>.md) over the built-in prompts')
    .option('--store <store>', 'a SQL store over the built-in prompts: sqlite:<path> or postgres://…')
    .option(
      '--config <file>',
      'the operator config file, whose "prompts.dir" is the folder when neither --dir nor --store is given ' +
        '(default: $AGENCY_CONFIG, else ~/.config/agency/config.json)',
    );
}

function addDraftOptions(command: Command): Command {
  return command
    .requiredOption('--file <path>', 'the text of the version, or - for standard input')
    .option('--var <name>', 'a variable the text uses (repeatable; default: the variables it uses)', collect, [])
    .option('--metadata <json>', 'a JSON object kept with the version, e.g. \'{"note":"shorter"}\'');
}

/** Registers `agency prompts ls|show|put|validate|audit|diff`, for operators managing prompt versions. */
export function registerPromptsCommand(program: Command, wrap: WrapAction, out: Output, err: Output): void {
  const prompts = program
    .command('prompts')
    .description("Manage prompt versions over agency's built-in prompts: list, show, put, validate, audit, diff");
  addStoreOptions(
    prompts.command('ls').description('The latest version of every prompt; with --id, every version of it'),
  )
    .option('--id <id>', 'every version of this prompt')
    .option('--json', 'print JSON')
    .action(wrap(async (options) => (await commands()).promptsListCommand(options, out)));
  addStoreOptions(
    prompts
      .command('show')
      .description('Print the text of a version (the latest when no @version), as it is')
      .argument('<ref>', 'the prompt, <id> or <id>@<version>'),
  )
    .option('--json', 'print the whole version as JSON')
    .action(wrap(async (ref: string, options) => (await commands()).promptsShowCommand(ref, options, out)));
  addDraftOptions(
    addStoreOptions(
      prompts
        .command('put')
        .description('Put a new version (never over one) and print <id>@<version>')
        .argument('<id>', 'the prompt, e.g. runner.plan'),
    ),
  )
    .option('--by <name>', 'who puts it (default: the OS user name)')
    .action(wrap(async (id: string, options) => (await commands()).promptsPutCommand(id, options, out)));
  addDraftOptions(
    addStoreOptions(
      prompts
        .command('validate')
        .description('Check a version as put would, storing nothing (exit 1 on problems, one a line)')
        .argument('<id>', 'the prompt, e.g. runner.plan'),
    ),
  ).action(wrap(async (id: string, options) => (await commands()).promptsValidateCommand(id, options, out, err)));
  addStoreOptions(prompts.command('audit').description('The audit trail of puts, oldest first'))
    .option('--id <id>', "this prompt's entries only")
    .option('--json', 'print JSON')
    .action(wrap(async (options) => (await commands()).promptsAuditCommand(options, out)));
  addStoreOptions(
    prompts
      .command('diff')
      .description("A line diff of two versions' texts")
      .argument('<from>', 'a version, <id>@<version>')
      .argument('<to>', 'another, <id>@<version>'),
  ).action(
    wrap(async (from: string, to: string, options) => (await commands()).promptsDiffCommand(from, to, options, out)),
  );
}
