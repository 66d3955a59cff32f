import { type Command, InvalidArgumentError, Option } from 'commander';
import type { WrapAction } from '../command-action.ts';
import type { Output } from '../render.ts';
import { addPromptOptions, collect, parsePrices } from './register-run-commands.ts';

function port(value: string): number {
  const number = Number(value);
  if (!Number.isInteger(number) || number < 0 || number > 65_535)
    throw new InvalidArgumentError('must be a port number');
  return number;
}

const repeat = (value: string, previous: string[] = []) => collect(value, previous);

// The models clients may use and how many runs go at once: `serve` and `mcp` alike.
function modelOptions(command: Command): Command {
  return command
    .option('--model <spec>', 'the default model of new tasks (default: $AGENCY_MODEL)')
    .option('--allow-model <spec>', 'another model clients may choose (repeatable)', repeat)
    .option('--allow-auto-approvals', 'let clients start tasks with approvals in auto mode')
    .option('--max-runs <n>', 'runs at once; more wait in a queue (default 4)', Number);
}

// The operator's settings runs are held to: `serve` and `mcp` alike.
function operatorOptions(command: Command): Command {
  const settings = command
    .option('--config <file>', 'the operator config file (default: $AGENCY_CONFIG, else ~/.config/agency/config.json)')
    .addOption(
      new Option('--policy <name>', 'default, strict, or permissive (warned and journaled)').choices([
        'default',
        'strict',
        'permissive',
      ]),
    )
    .addOption(new Option('--sandbox <mode>', 'bwrap, or none (warned and journaled)').choices(['bwrap', 'none']))
    .option('--allow-host <host>', 'a host the network tools may reach without approval (repeatable)', repeat);
  return addPromptOptions(settings)
    .option(
      '--price <model=in/out>',
      'a model price in USD per million tokens: <model>=<input>/<output>[/<cached input>[/<cache write>]]; repeatable',
      collect,
      [],
    )
    .hook('preAction', (command) => parsePrices(command));
}

/** Registers `agency serve`. */
export function registerServeCommand(program: Command, wrap: WrapAction, out: Output): void {
  const serve = program
    .command('serve')
    .description('Serve the HTTP API, the dashboard and the approvals inbox over tasks under AGENCY_ROOT')
    .option('--root <dir>', 'the data root (default: $AGENCY_ROOT, else ~/.agency)')
    .option('--host <address>', 'the address to bind (default 127.0.0.1)')
    .option('--port <n>', 'the port (default 7420; 0 picks a free one)', port);
  modelOptions(serve)
    .option('--tls', 'serve HTTPS with a self-signed certificate kept under the data root')
    .option('--regen-cert', 'replace that certificate first')
    .option(
      '--allowed-host <name>',
      'another Host name the server answers to, e.g. behind a proxy (repeatable)',
      repeat,
    )
    .option(
      '--mcp-port <n>',
      'also serve the tasks over MCP (Streamable HTTP) on 127.0.0.1:<n>/mcp, with the same token (0 picks a free port)',
      port,
    )
    .option('--log-file <file>', 'where the JSON log goes, or - for stderr (default: <root>/server/server.log)')
    .option(
      '--fleet-ports <from-to>',
      'the ports of 127.0.0.1 scanned for workers (default: $AGENCY_FLEET_PORTS, else 9000-9199; none: no scan)',
    )
    .option(
      '--fleet-worker <url>',
      'a worker polled besides the scan (repeatable; $AGENCY_FLEET_URLS adds more)',
      repeat,
    )
    .option('--no-fleet', 'no fleet: no scan, no polling, the fleet routes and page empty');
  operatorOptions(serve).action(wrap(async (options) => (await import('./serve.ts')).serveCommand(options, out)));
}

/** Registers `agency mcp`. It speaks MCP on stdout, so everything it says goes to `err`. */
export function registerMcpCommand(program: Command, wrap: WrapAction, err: Output): void {
  const mcp = program
    .command('mcp')
    .description('Serve governed tasks to an MCP client on stdio (Claude Desktop, an IDE) over tasks under AGENCY_ROOT')
    .option('--root <dir>', 'the data root (default: $AGENCY_ROOT, else ~/.agency)')
    .option('--as <name>', 'the name decisions made over MCP are signed with (default: $USER)');
  modelOptions(mcp).option(
    '--log-file <file>',
    'where the JSON log goes, or - for stderr (default: <root>/server/mcp.log)',
  );
  operatorOptions(mcp).action(wrap(async (options) => (await import('./mcp.ts')).mcpCommand(options, err)));
}
