import type { Command } from 'commander';
import type { WrapAction } from '../command-action.ts';
import type { Output } from '../render.ts';

/** Registers `agency validate`. */
export function registerValidateCommand(program: Command, wrap: WrapAction, out: Output, err: Output): void {
  program
    .command('validate')
    .description('Check fleet configs (agents/<name>/config.yaml, directors/<name>/config.yaml) as they start')
    .argument('[file]', 'a config file')
    .option('--all', 'every config under the data root')
    .option('--root <dir>', 'the data root (default: $AGENCY_ROOT, else ~/.agency)')
    .action(
      wrap(async (file: string | undefined, options: { all?: boolean; root?: string }) =>
        (await import('./validate.ts')).validateCommand(file, options, out, err),
      ),
    );
}
