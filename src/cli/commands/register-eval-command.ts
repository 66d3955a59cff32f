import { type Command, InvalidArgumentError } from 'commander';
import type { WrapAction } from '../command-action.ts';
import type { Output } from '../render.ts';
import { addPromptOptions, collect, parsePrices } from './register-run-commands.ts';

// eval.ts loads the runner, the models and the tools: only when `agency eval` runs.
const commands = () => import('./eval.ts');

function concurrency(value: string): number {
  const number = Number(value);
  if (!Number.isInteger(number) || number < 1 || number > 64)
    throw new InvalidArgumentError('must be a whole number from 1 to 64');
  return number;
}

function percent(value: string): number {
  const number = Number(value);
  if (!Number.isFinite(number) || number < 0) throw new InvalidArgumentError('must be a percentage, 0 or more');
  return number;
}

/** Registers `agency eval <suite>`: run an eval suite, report, and compare with an earlier report. */
export function registerEvalCommand(program: Command, wrap: WrapAction, out: Output): void {
  const command = program
    .command('eval')
    .description('Run an eval suite of tasks with expected outcomes, and report (docs/evals.md)')
    .argument('<suite>', 'the suite folder: one sub-folder per case, each with task/, expect.yaml and cassette.jsonl')
    .option('--model <spec>', "a model for every case instead of each case's cassette.jsonl (e.g. openai:gpt-4o)")
    .option('--record', "with --model: record each case's model calls to its cassette.jsonl, replacing it")
    .option('--concurrency <n>', 'how many cases run at once', concurrency, 2)
    .option('--json <file>', 'write the report as JSON (agency.eval.v1)')
    .option('--html <file>', 'write the report as a self-contained HTML page with charts')
    .option('--compare <previous.json>', 'compare with an earlier --json report; a regression exits with 8')
    .option('--threshold <percent>', 'with --compare: how far tokens, cost or time may rise', percent, 10)
    .option('--work-dir <dir>', 'run the copies of the cases here and keep them (default: a temporary folder, removed)')
    .option(
      '--price <model=in/out>',
      'a model price in USD per million tokens: <model>=<input>/<output>[/<cached input>[/<cache write>]]; repeatable',
      collect,
      [],
    )
    .option('--config <file>', 'the operator config file (default: $AGENCY_CONFIG, else ~/.config/agency/config.json)');
  addPromptOptions(command)
    .hook('preAction', (command) => parsePrices(command))
    .action(wrap(async (suite: string, options) => (await commands()).evalCommand(suite, options, out)));
}
