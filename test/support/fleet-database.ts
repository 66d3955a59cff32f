// A throwaway PostgreSQL with the fleet's schema for the tests of one file: started before them, stopped after.
import { afterAll, beforeAll } from 'vitest';
import { type FleetDatabase, openFleetDatabase } from '../../src/fleet/queue/database.ts';
import { startPostgres, type TempPostgres } from './postgres.ts';

/** The cluster and the migrated fleet database, set once the file's `beforeAll` has run. */
export type FleetDatabaseFixture = { pg: TempPostgres; db: FleetDatabase };

/** Registers the hooks that start the cluster and migrate it before the file's tests, and stop it after them. */
export function useFleetDatabase(): FleetDatabaseFixture {
  const fixture = {} as FleetDatabaseFixture;
  beforeAll(async () => {
    fixture.pg = await startPostgres();
    fixture.db = openFleetDatabase(fixture.pg.url);
    await fixture.db.migrate();
  }, 120_000);
  afterAll(async () => {
    await fixture.db?.close();
    await fixture.pg?.stop();
  });
  return fixture;
}
