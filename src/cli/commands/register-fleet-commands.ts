import { type Command, InvalidArgumentError } from 'commander';
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

function port(value: string): number {
  const number = Number(value);
  if (!Number.isInteger(number) || number < 0 || number > 65_535)
    throw new InvalidArgumentError('must be a port number');
  return number;
}

/** Registers `agency worker`. */
export function registerWorkerCommand(program: Command, wrap: WrapAction, out: Output, err: Output): void {
  program
    .command('worker')
    .description('Run an agent daemon: tasks over HTTP, one at a time, with sessions and history (docs/fleet.md)')
    .argument('[name]', 'the worker: its config is agents/<name>/config.yaml under the data root')
    .option('--config <file>', 'a config file instead (its directory is the instance directory)')
    .option('--root <dir>', 'the data root (default: $AGENCY_ROOT, else ~/.agency)')
    .option('--port <n>', "instead of the config's port (0 picks a free one)", port)
    .action(
      wrap(async (name: string | undefined, options: { config?: string; root?: string; port?: number }) =>
        (await import('./worker.ts')).workerCommand(name, options, out, err),
      ),
    );
}
