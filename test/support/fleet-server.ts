// The server app (app.request(), no socket) with a running fleet: its discovery polls the workers given, at a test's
// pace, and every JSON answer of a fleet route is checked against its schema.
import type { FleetView } from '../../src/api/fleet-schemas.ts';
import { createFleet, type Fleet, type FleetOptions } from '../../src/server/fleet/fleet.ts';
import { type ServerFixture, serverFixture, until } from './server-fixture.ts';

/** Polls fast, so a change shows within a few hundred milliseconds. */
export const FAST_PACE = { scanIntervalMs: 200, idleIntervalMs: 200, workingIntervalMs: 100 };

export type FleetServer = ServerFixture & {
  fleet: Fleet;
  /** `GET /agent/fleet`. */
  view(): Promise<FleetView>;
  /** Resolves with the fleet once `check` holds. */
  until(check: (view: FleetView) => boolean, timeoutMs?: number): Promise<FleetView>;
  close(): Promise<void>;
};

/** A server whose fleet is `options` (by default: no scan, and the static `urls`), started. */
export async function fleetServer(options: FleetOptions): Promise<FleetServer> {
  const fleet = createFleet({
    ports: null,
    timeoutMs: 3_000,
    statusTimeoutMs: 1_000,
    ...options,
    discovery: { ...FAST_PACE, ...options.discovery },
  });
  const fixture = await serverFixture({ app: { fleet } });
  fleet.start();
  const view = async () => (await (await fixture.api('/agent/fleet')).json()) as FleetView;
  return {
    ...fixture,
    fleet,
    view,
    until: async (check, timeoutMs = 15_000) =>
      until(async () => {
        const current = await view();
        return check(current) ? current : undefined;
      }, timeoutMs),
    async close() {
      fleet.close();
      await fixture.service.close();
    },
  };
}
