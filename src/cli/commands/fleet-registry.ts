// `agency fleet` in fleet mode (AGENCY_DATABASE_URL set): the workers of the registry, with the health of their
// heartbeats, instead of a port scan.
import type { RegisteredWorker, RegistryHealth } from '../../fleet/queue/registry.ts';
import type { FleetSettings } from '../../fleet/queue/settings.ts';
import { EXIT } from '../exit-codes.ts';
import { type Output, paint } from '../render.ts';

const HEALTH_COLOUR = { healthy: 'green', late: 'yellow', lost: 'red', stopped: 'dim' } as const satisfies Record<
  RegistryHealth,
  string
>;

/** Lists the registry's workers as a table, or as JSON with `json`. */
export async function registryFleetCommand(
  fleet: FleetSettings,
  options: { json?: boolean },
  out: Output,
): Promise<number> {
  const { openFleetDatabase, readRegistry } = await import('../../fleet/queue/index.ts');
  const db = openFleetDatabase(fleet.databaseUrl);
  try {
    const workers = await readRegistry(db.pool, fleet.databaseUrl);
    if (options.json) out.write(`${JSON.stringify(workers, null, 2)}\n`);
    else
      out.write(
        `${formatRegistryTable(workers, out)}${paint(out, 'dim', `${workers.length} worker(s) in the registry`)}\n`,
      );
    return EXIT.ok;
  } finally {
    await db.close();
  }
}

/** The registry's workers as a table: name, host, URL, executors, labels, state, health, heartbeat age, task. */
export function formatRegistryTable(workers: readonly RegisteredWorker[], out: Output): string {
  if (workers.length === 0) return 'No workers registered.\n';
  const header = ['NAME', 'HOST', 'URL', 'EXECUTORS', 'LABELS', 'STATE', 'HEALTH', 'HEARTBEAT', 'TASK'];
  const rows = workers.map((worker) => [
    worker.name,
    worker.host,
    worker.url,
    worker.executors.join(','),
    worker.labels.join(',') || '—',
    worker.state,
    worker.health,
    `${Math.round(worker.heartbeat_age_seconds)} s ago`,
    worker.current_task ?? '—',
  ]);
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, column) => (column === cells.length - 1 ? cell : cell.padEnd(widths[column]!)))
      .join('  ')
      .trimEnd();
  return `${[
    paint(out, 'bold', line(header)),
    ...rows.map((row, index) => {
      const text = line(row);
      return paint(out, HEALTH_COLOUR[workers[index]!.health], text);
    }),
  ].join('\n')}\n`;
}
