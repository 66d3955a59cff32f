import { agencyRoot, agencyRootAt } from '../../config/agency-root.ts';
import { DEFAULT_PORTS, type PortRange, parsePortRange } from '../../fleet/discovery/port-scan.ts';

/** The discovery flags every fleet command takes. */
export type FleetFlags = {
  /** `FROM-TO`; default `$AGENCY_FLEET_PORTS`, else 9000-9199. */
  ports?: string;
  /** Workers at known URLs, besides the scan; `$AGENCY_FLEET_URLS` adds more (comma- or space-separated). */
  url?: string[];
  /** The data root; default `$AGENCY_ROOT`, else `~/.agency`. */
  root?: string;
};

/** Where the fleet is looked for, from the flags and the environment. */
export function fleetSettings(
  flags: FleetFlags,
  env: NodeJS.ProcessEnv = process.env,
): { ports: PortRange; urls: string[]; root: string; token: string | undefined } {
  const ports = flags.ports
    ? parsePortRange(flags.ports, '--ports')
    : env.AGENCY_FLEET_PORTS
      ? parsePortRange(env.AGENCY_FLEET_PORTS, 'AGENCY_FLEET_PORTS')
      : DEFAULT_PORTS;
  const urls = [...(flags.url ?? []), ...(env.AGENCY_FLEET_URLS ?? '').split(/[\s,]+/).filter(Boolean)];
  const root = (flags.root ? agencyRootAt(flags.root) : agencyRoot(env)).root;
  return { ports, urls, root, token: env.AGENCY_TOKEN || undefined };
}
