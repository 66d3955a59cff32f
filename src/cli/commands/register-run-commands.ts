import { type Command, InvalidArgumentError, Option } from 'commander';
import type { ModelPrice } from '../../core/model-catalog.ts';
import type { WrapAction } from '../command-action.ts';
import type { Output } from '../render.ts';
import type { RemoteRunOptions } from './remote-run.ts';
import { addServerOptions, checkLocal } from './register-server-options.ts';

// `run.ts` loads the whole runtime (runner, models, tools); it is imported when `run` or `resume` starts, so
// `agency --help` and the other commands never pay for it. With --server, `remote-run.ts` loads the client only.
const commands = () => import('./run.ts');
const remote = () => import('./remote-run.ts');

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

// `--price` values are collected as given and parsed just before `run` or `resume` acts, so that registering the
// commands loads no price (or error and redaction) code. A bad one is refused exactly as commander refuses any bad
// option value, with the same message and the help after it.
export function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

/** Parses the `--price` values a command collected, refusing a bad one as commander refuses any bad value. */
export async function parsePrices(command: Command): Promise<void> {
  const given = command.getOptionValue('price') as string[];
  if (given.length === 0) return;
  const { parsePriceOverride } = await import('../../core/price-override.ts');
  const prices: Array<[string, ModelPrice]> = given.map((value) => {
    try {
      return parsePriceOverride(value);
    } catch (error) {
      return command.error(
        `error: option '--price <model=in/out>' argument '${value}' is invalid. ${(error as Error).message}`,
        { code: 'commander.invalidArgument' },
      );
    }
  });
  command.setOptionValue('price', prices);
}

// The choices are spelled out rather than imported, so that registering the commands loads no config code.
function addRunOptions(command: Command): Command {
  const models = command
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
    .option('--max-iterations <n>', 'the most model calls', positiveInteger)
    .option(
      '--max-cost <usd>',
      'the most dollars to spend; every model needs a price (built in, or --price)',
      positiveNumber,
    )
    .option(
      '--price <model=in/out>',
      'a model price in USD per million tokens: <model>=<input>/<output>[/<cached input>[/<cache write>]]; repeatable',
      collect,
      [],
    )
    .option('--max-total-tokens <n>', 'the most tokens to spend', positiveInteger)
    .option('--max-time <seconds>', 'the most wall-clock seconds', positiveNumber)
    .addOption(
      new Option('--view <view>', 'how much of the result to print')
        .choices(['minimal', 'summary', 'full'])
        .default('summary'),
    )
    .option(
      '--record <cassette>',
      'record every model call to a cassette, to replay later with --model replay:<cassette>',
    );
  return addPromptOptions(models)
    .option('--json', 'print journal frames as NDJSON, then the result as one JSON line')
    .option(
      '--log-file <file>',
      'also write the structured JSON log (component "runner") to this file, or - for stderr',
    )
    .option(
      '--role <name>',
      'a role from $AGENCY_ROOT/roles/<name>.yaml or the built-in researcher, writer, reviewer: persona, tools, memory channel, policy and budgets (other flags override it)',
    )
    .option(
      '--memory <store>',
      'memory that outlives the run: sqlite:<path>, postgres://…, redis://… or zep://… (over "memory.store" of the config file)',
    )
    .option('--config <file>', 'the operator config file (default: $AGENCY_CONFIG, else ~/.config/agency/config.json)')
    .addOption(
      new Option('--policy <name>', 'default, strict, or permissive (no operator rules; warned and journaled)').choices(
        ['default', 'strict', 'permissive'],
      ),
    )
    .addOption(
      new Option('--sandbox <mode>', 'bwrap, or none to run commands unsandboxed (warned and journaled)').choices([
        'bwrap',
        'none',
      ]),
    )
    .option(
      '--allow-host <host>',
      'a host, *.domain, CIDR or host:port the network tools may reach without approval (repeatable)',
      (value: string, previous: string[] = []) => [...previous, value],
    );
}

// Checked as it is read, as commander checks any bad value; the pins are parsed again where they are used.
function promptPin(value: string): string {
  if (!/^[a-z0-9]+(?:[._-][a-z0-9]+)*@[1-9][0-9]*$/.test(value)) {
    throw new InvalidArgumentError('write it as <id>@<version>, e.g. runner.plan@1');
  }
  return value;
}

/** `--prompts <dir>` and `--prompt <id@version>`, over the operator config's `prompts` (docs/prompts.md). */
export function addPromptOptions(command: Command): Command {
  return command
    .option(
      '--prompts <dir>',
      'a folder of prompt versions (<id>/<version>.md) over the built-in prompts (over "prompts.dir" of the config file)',
    )
    .option(
      '--prompt <id@version>',
      'use this version of a prompt instead of its latest, e.g. runner.plan@1 (repeatable)',
      (value: string, previous: string[] = []) => [...previous, promptPin(value)],
    );
}

/** Registers `agency run` and `agency resume`. */
export function registerRunCommands(program: Command, wrap: WrapAction, out: Output, err: Output): void {
  const action =
    (mode: 'start' | 'resume') =>
    async (root: string, options: RemoteRunOptions): Promise<number> => {
      if (options.server !== undefined) return (await remote()).remoteRunCommand(root, options, mode, out, err);
      checkLocal(options);
      return (await commands()).runCommand(root, options, mode, out);
    };
  addServerOptions(
    addRunOptions(
      program
        .command('run')
        .description('Start a task and run it to the end (exit codes: docs/cli.md)')
        .argument('<root>', 'the task folder (with --server: a task folder or a brief file, sent to the server)')
        .hook('preAction', (command) => parsePrices(command)),
    ),
    'run it on an agency server: send the brief and the files of task/, and follow the run there',
  ).action(wrap(action('start')));
  addServerOptions(
    addRunOptions(
      program
        .command('resume')
        .description(
          'Continue a run that was stopped, cancelled, out of budget, left with an expired approval, failed or ' +
            'killed; --max-* options raise its budgets',
        )
        .argument('<root>', 'the task folder (with --server: a task id)')
        .hook('preAction', (command) => parsePrices(command)),
    ),
  ).action(wrap(action('resume')));
}
