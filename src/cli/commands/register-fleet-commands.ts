import { type Command, InvalidArgumentError } from 'commander';
import type { WrapAction } from '../command-action.ts';
import type { Output } from '../render.ts';
import { collect } from './register-run-commands.ts';

function whole(what: string, min: number, max: number) {
  return (value: string): number => {
    const number = Number(value);
    if (!Number.isInteger(number) || number < min || number > max)
      throw new InvalidArgumentError(`must be ${what} (${min}–${max})`);
    return number;
  };
}
const seconds = whole('a number of seconds', 1, 86_400);
const drainSeconds = whole('a number of seconds', 0, 3_600);
const port = whole('a port number', 1, 65_535);
const repeat = (value: string, previous: string[] = []) => collect(value, previous);

// Where every fleet command looks for components.
function discoveryOptions(command: Command): Command {
  return command
    .option('--ports <from-to>', 'the port range scanned on 127.0.0.1 (default: $AGENCY_FLEET_PORTS, else 9000-9199)')
    .option(
      '--url <url>',
      'a component at a known URL, besides the scan (repeatable; also $AGENCY_FLEET_URLS)',
      repeat,
    );
}

/** Registers `agency task`, the CLI director. */
export function registerTaskCommand(program: Command, wrap: WrapAction, out: Output, err: Output): void {
  discoveryOptions(
    program
      .command('task')
      .description(
        'Send a prompt to an idle worker of the fleet, follow it, print its answer (exit codes: docs/cli.md)',
      )
      .argument('[prompt]', 'what to do')
      .option('--agent <url|name>', 'the worker to send it to: a URL, a name or a port (default: any idle one)')
      .option('--session <id>', 'carry on this session')
      .option('--continue', 'carry on the last session')
      .option('--end', 'end the session (--session, else the last one) instead of sending a prompt')
      .option('--model <name>', "the model for this task (default: the worker's)")
      .option('--timeout <seconds>', 'the worker stops the task after this long', seconds)
      .option('--wait [seconds]', 'when every worker is busy, wait for one (default 300 s) instead of failing', seconds)
      .option('--label <name>', 'fleet mode: only a worker with this label takes the task (repeatable)', repeat)
      .option('--json', 'print the final task as JSON')
      .option('--root <dir>', 'the data root, where sessions are remembered (default: $AGENCY_ROOT, else ~/.agency)'),
  ).action(
    wrap(async (prompt: string | undefined, options) =>
      (await import('./task.ts')).taskCommand(prompt, options, out, err),
    ),
  );
}

/** Registers `agency fleet`, `agency shutdown` and `agency kill`. */
export function registerFleetCommands(program: Command, wrap: WrapAction, out: Output): void {
  const commands = () => import('./fleet.ts');
  discoveryOptions(
    program
      .command('fleet')
      .description('List the components of the fleet: type, state, health, uptime, current task')
      .option('--json', 'print machine-readable JSON')
      .option('--watch', 'keep polling and redrawing until Ctrl-C'),
  ).action(wrap(async (options) => (await commands()).fleetCommand(options, out)));

  const selectors = (command: Command) =>
    discoveryOptions(
      command
        .option('--all', 'every component found')
        .option('--agents', 'the agents')
        .option('--directors', 'the directors, helpers and views')
        .option('--port <n>', 'the component on this port of 127.0.0.1', port),
    );
  selectors(
    program
      .command('shutdown')
      .description('Ask components to shut down gracefully; one running a task refuses unless --force')
      .option('--force', 'stop a running task (after --timeout) instead of refusing')
      .option(
        '--timeout <seconds>',
        'how long a running task may finish before it is cancelled (0: at once; 30 by default)',
        drainSeconds,
      ),
  ).action(wrap(async (options) => (await commands()).shutdownCommand(options, out)));

  selectors(
    program.command('kill').description("Stop components' processes (their /status pid): SIGTERM, SIGKILL 5 s later"),
  ).action(wrap(async (options) => (await commands()).killCommand(options, out)));
}

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

/** Registers `agency worker`. */
export function registerWorkerCommand(program: Command, wrap: WrapAction, out: Output, err: Output): void {
  program
    .command('worker')
    .description('Run an agent daemon: tasks over HTTP, one at a time, with sessions and history (docs/fleet.md)')
    .argument(
      '[name]',
      "the worker: its config is agents/<name>/config.yaml under the data root, else the manager director's directors/<name>/config.yaml",
    )
    .option('--config <file>', 'a config file instead (its directory is the instance directory)')
    .option('--root <dir>', 'the data root (default: $AGENCY_ROOT, else ~/.agency)')
    .option('--port <n>', "instead of the config's port (0 picks a free one)", whole('a port number', 0, 65_535))
    .action(
      wrap(async (name: string | undefined, options: { config?: string; root?: string; port?: number }) =>
        (await import('./worker.ts')).workerCommand(name, options, out, err),
      ),
    );
  // The manager director's turn, as its executor starts it inside the sandbox; not for a shell.
  program
    .command('manager-turn', { hidden: true })
    .argument('<root>', "the turn's task root; the job is read from stdin")
    .action(wrap(async (root: string) => (await import('./manager-turn.ts')).managerTurnCommand(root, err)));
}

/** Registers `agency director`. */
export function registerDirectorCommand(program: Command, wrap: WrapAction, out: Output, err: Output): void {
  program
    .command('director')
    .description('Run a director daemon (a scheduler…): it finds work and hands it to workers (docs/directors.md)')
    .argument('<name>', 'the director: its config is directors/<name>/config.yaml under the data root')
    .option('--root <dir>', 'the data root (default: $AGENCY_ROOT, else ~/.agency)')
    .option('--port <n>', "instead of the config's port (0 picks a free one)", whole('a port number', 0, 65_535))
    .action(
      wrap(async (name: string, options: { root?: string; port?: number }) =>
        (await import('./director.ts')).directorCommand(name, options, out, err),
      ),
    );
}
