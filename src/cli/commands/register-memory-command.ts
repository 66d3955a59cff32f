import { type Command, InvalidArgumentError } from 'commander';
import type { WrapAction } from '../command-action.ts';
import type { Output } from '../render.ts';
import { collect } from './register-run-commands.ts';

// memory.ts opens a store (node:sqlite); it is loaded when a memory command runs.
const commands = () => import('./memory.ts');

function limit(value: string): number {
  const number = Number(value);
  if (!Number.isInteger(number) || number <= 0 || number > 10_000) {
    throw new InvalidArgumentError('must be a whole number from 1 to 10000');
  }
  return number;
}

function addStoreOptions(command: Command): Command {
  return command
    .option(
      '--store <store>',
      'the memory store: sqlite:<path>, postgres://…, redis://… or zep://… (default: "memory.store" of the config file)',
    )
    .option('--config <file>', 'the operator config file (default: $AGENCY_CONFIG, else ~/.config/agency/config.json)')
    .option('--json', 'print JSON');
}

function addFilterOptions(command: Command): Command {
  return command
    .option('--scope <kind:id>', 'only this scope, e.g. user:u1 (repeatable; default: every scope)', collect, [])
    .option('--kind <kind>', 'only entries of this kind (repeatable)', collect, [])
    .option('--tag <tag>', 'only entries with this tag (repeatable: all of them)', collect, [])
    .option('--key <key>', 'only the entry with this key (repeatable)', collect, [])
    .option('--limit <n>', 'the most entries to print', limit, 50);
}

/** Registers `agency memory ls|search|rm`, for operators looking into a memory store. */
export function registerMemoryCommand(program: Command, wrap: WrapAction, out: Output): void {
  const memory = program.command('memory').description('Look into a memory store: list, search and remove entries');
  addFilterOptions(addStoreOptions(memory.command('ls').description('List entries, newest first'))).action(
    wrap(async (options) => (await commands()).memoryListCommand(options, out)),
  );
  addFilterOptions(
    addStoreOptions(
      memory
        .command('search')
        .description('Entries that match the text, most relevant first')
        .argument('<text>', 'words to look for'),
    ),
  ).action(wrap(async (text: string, options) => (await commands()).memoryQueryCommand(text, options, out)));
  addStoreOptions(
    memory
      .command('rm')
      .description('Delete one entry (exit 1 when it was not there)')
      .argument('<scope>', 'its scope, e.g. user:u1')
      .argument('<id>', 'its id'),
  ).action(
    wrap(async (scope: string, id: string, options) => (await commands()).memoryRemoveCommand(scope, id, options, out)),
  );
}
