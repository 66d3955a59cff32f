import { AgencyError } from '../../core/errors.ts';
import { type Component, componentJson } from '../../fleet/discovery/component.ts';
import { createDiscovery } from '../../fleet/discovery/discovery.ts';
import { label } from '../../fleet/directors/cli/place-task.ts';
import { killComponents, type Selector, selectComponents, shutdownComponents } from '../../fleet/fleet-control.ts';
import { createWorkerClient } from '../../fleet/worker-client.ts';
import { fleetSettingsFrom } from '../../fleet/queue/settings.ts';
import { EXIT } from '../exit-codes.ts';
import { formatFleetTable } from '../fleet-view.ts';
import { type Output, paint } from '../render.ts';
import { stopOnSignals } from '../signals.ts';
import { type FleetFlags, fleetSettings } from './fleet-options.ts';

/** The selector flags of `agency shutdown` and `agency kill`. */
export type SelectorFlags = FleetFlags & Selector;

// A discovery from the flags: the scan and the static list, or with --port only that port of 127.0.0.1 (inside the
// range or not). The token goes only to the URLs named.
function discoveryFor(flags: FleetFlags & { port?: number }, onChange?: (components: Component[]) => void) {
  const { ports, urls, token } = fleetSettings(flags);
  const named = flags.port === undefined ? urls : [`http://127.0.0.1:${flags.port}`];
  const origins = new Set(named.map((url) => new URL(url).origin));
  return createDiscovery({
    ports: flags.port === undefined ? ports : null,
    urls: named,
    clientFor: (url) => createWorkerClient(url, token && origins.has(new URL(url).origin) ? { token } : {}),
    ...(onChange ? { onChange } : {}),
  });
}

/** `agency fleet`: the components discovery finds, as a table or JSON; `--watch` keeps it current. */
export async function fleetCommand(
  options: FleetFlags & { json?: boolean; watch?: boolean },
  out: Output,
): Promise<number> {
  const fleet = options.ports || options.url?.length ? undefined : fleetSettingsFrom();
  if (fleet && !options.watch) return (await import('./fleet-registry.ts')).registryFleetCommand(fleet, options, out);
  const { ports, urls } = fleetSettings(options);
  const where = `scanned 127.0.0.1:${ports.from}-${ports.to}${urls.length ? ` and ${urls.length} URL(s)` : ''}`;
  const render = (components: Component[], ignored: ReadonlyMap<string, string> = new Map()) =>
    options.json
      ? `${JSON.stringify(components.map(componentJson), null, options.watch ? undefined : 2)}\n`
      : `${formatFleetTable(components, out)}${notComponents(ignored, out)}` +
        `${paint(out, 'dim', `${components.length} component(s); ${where}`)}\n`;
  if (!options.watch) {
    const discovery = discoveryFor(options);
    out.write(render(await discovery.refresh(), discovery.ignored()));
    return EXIT.ok;
  }
  // Redrawn on a change and every second (for uptimes) on a terminal; elsewhere, written again on each change.
  const draw = (components: Component[]) =>
    out.write(`${out.isTTY && !options.json ? '\x1b[H\x1b[2J' : ''}${render(components)}`);
  const discovery = discoveryFor(options, (components) => draw(components));
  draw([]);
  discovery.start();
  const tick = out.isTTY ? setInterval(() => draw(discovery.components()), 1000) : undefined;
  await new Promise<void>((resolve) => {
    const remove = stopOnSignals(out, '', () => {
      remove();
      resolve();
    });
  });
  if (tick) clearInterval(tick);
  discovery.stop();
  return EXIT.ok;
}

// Ports of the range that answered, but not as a component: a worker of another version, or another service.
function notComponents(ignored: ReadonlyMap<string, string>, out: Output): string {
  if (ignored.size === 0) return '';
  const lines = [...ignored].map(([url, why]) => `  ${url}: ${why.replace(/^worker \S+: /, '')}`);
  return `${paint(out, 'yellow', 'Answered, but not as a component:')}\n${lines.join('\n')}\n`;
}

/** `agency shutdown`: `POST /shutdown` to each component selected, and each answer. */
export async function shutdownCommand(
  options: SelectorFlags & { force?: boolean; timeout?: number },
  out: Output,
): Promise<number> {
  const { clientFor, targets } = await selected(options);
  const outcomes = await shutdownComponents(targets, {
    clientFor,
    ...(options.force ? { force: true } : {}),
    ...(options.timeout === undefined ? {} : { timeoutSeconds: options.timeout }),
  });
  for (const outcome of outcomes) {
    const name = label(outcome.component);
    if (outcome.ok) {
      out.write(
        `${paint(out, 'green', '✓')} ${name}: ${outcome.answer.message} (drain ${outcome.answer.drain_timeout} s)\n`,
      );
    } else {
      const hint =
        outcome.error.code === 'task_active' ? ' (--force cancels it after the drain time; --timeout 0 at once)' : '';
      out.write(`${paint(out, 'red', '✗')} ${name}: ${outcome.error.message.replace(/^worker \S+: /, '')}${hint}\n`);
    }
  }
  return outcomes.every((outcome) => outcome.ok) ? EXIT.ok : EXIT.failed;
}

/** `agency kill`: SIGTERM to each selected component's process, SIGKILL 5 s later to those still running. */
export async function killCommand(options: SelectorFlags, out: Output): Promise<number> {
  const { targets } = await selected(options);
  const outcomes = await killComponents(targets);
  const marks = { terminated: 'green', killed: 'yellow', gone: 'dim', skipped: 'red' } as const;
  for (const outcome of outcomes) {
    out.write(
      `${paint(out, marks[outcome.result], outcome.result.padEnd(10))} ${label(outcome.component)}: ${outcome.detail}\n`,
    );
  }
  return outcomes.every((outcome) => outcome.result !== 'skipped') ? EXIT.ok : EXIT.failed;
}

async function selected(options: SelectorFlags) {
  const chosen = [
    options.all && '--all',
    options.agents && '--agents',
    options.directors && '--directors',
    options.port !== undefined && '--port',
  ].filter(Boolean);
  if (chosen.length !== 1) {
    throw new AgencyError(
      'invalid_argument',
      chosen.length === 0
        ? 'say which components: --all, --agents, --directors or --port N'
        : `choose one of ${chosen.join(', ')}`,
    );
  }
  const { token, urls } = fleetSettings(options);
  const origins = new Set(urls.map((url) => new URL(url).origin));
  const components = await discoveryFor(options).refresh();
  const targets = selectComponents(components, options);
  if (targets.length === 0) {
    const found = components.filter((component) => component.status).map(label);
    throw new AgencyError(
      'no_worker',
      `No component matches ${chosen[0]}${options.port === undefined ? '' : ` ${options.port}`}; found ${found.length}${found.length ? `: ${found.join(', ')}` : ''}.`,
    );
  }
  const clientFor = (url: string) =>
    createWorkerClient(url, token && origins.has(new URL(url).origin) ? { token } : {});
  return { targets, clientFor };
}
