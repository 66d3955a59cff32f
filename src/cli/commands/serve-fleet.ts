import { databaseWhere, fleetSettingsFrom } from '../../fleet/queue/settings.ts';
import { DEFAULT_PORTS, type PortRange, parsePortRange } from '../../fleet/discovery/port-scan.ts';

/** The fleet flags of `agency serve`. */
export type ServeFleetFlags = {
  /** `FROM-TO`, one port, or `none`. */
  fleetPorts?: string;
  fleetWorker?: string[];
  /** False with `--no-fleet`. */
  fleet?: boolean;
};

/** Where the server's fleet looks for workers; undefined when the fleet is off. */
export type ServeFleet = { ports: PortRange | null; urls: string[] } | undefined;

/**
 * Where `agency serve` looks for workers: `--fleet-ports` (`none` scans nothing), else `$AGENCY_FLEET_PORTS`, else
 * 9000–9199; `--fleet-worker` URLs and then `$AGENCY_FLEET_URLS` (discovery refuses one that is not http(s));
 * nothing with `--no-fleet`.
 * @throws AgencyError `invalid_argument` naming the flag or variable for a range that is not one
 */
export function serveFleet(flags: ServeFleetFlags, env: NodeJS.ProcessEnv = process.env): ServeFleet {
  if (flags.fleet === false) return undefined;
  const text = flags.fleetPorts ?? env.AGENCY_FLEET_PORTS;
  const where = flags.fleetPorts === undefined ? 'AGENCY_FLEET_PORTS' : '--fleet-ports';
  const ports =
    text === undefined || text.trim() === ''
      ? DEFAULT_PORTS
      : text.trim() === 'none'
        ? null
        : parsePortRange(text, where);
  const urls = [...(flags.fleetWorker ?? []), ...(env.AGENCY_FLEET_URLS ?? '').split(/[\s,]+/).filter(Boolean)];
  return { ports, urls };
}

/** How the fleet reads in `agency serve`'s banner; with `AGENCY_DATABASE_URL`, the registry it reads first. */
export function describeFleet(fleet: ServeFleet, env: NodeJS.ProcessEnv = process.env): string {
  if (!fleet) return 'off (--no-fleet)';
  const settings = fleetSettingsFrom(env);
  const parts = [
    ...(settings ? [`registry at ${databaseWhere(settings.databaseUrl)} (AGENCY_DATABASE_URL)`] : []),
    ...(fleet.ports ? [`scanning 127.0.0.1:${fleet.ports.from}-${fleet.ports.to}`] : []),
    ...fleet.urls,
  ];
  return parts.length > 0 ? parts.join(', ') : 'no ports scanned and no worker URL';
}
