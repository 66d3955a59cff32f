// agency's own tables for the fleet across hosts, in schema `agency`, one migration per version. Add a version,
// never edit one. pg-boss keeps its own (schema `pgboss`) and migrates them itself.
import type { Pool } from 'pg';
import { AgencyError } from '../../core/errors.ts';

/** The migrations, in order; `agency.schema_migrations` records each one applied. */
export const FLEET_MIGRATIONS: readonly { name: string; sql: string }[] = [
  {
    name: 'fleet registry, tasks and task history',
    sql: `
      CREATE TABLE agency.workers (
        name text PRIMARY KEY,
        url text NOT NULL,
        host text NOT NULL,
        executors text[] NOT NULL,
        labels text[] NOT NULL DEFAULT '{}',
        state text NOT NULL,
        current_task text,
        heartbeat_seconds integer NOT NULL,
        last_heartbeat timestamptz NOT NULL DEFAULT now(),
        started_at timestamptz NOT NULL DEFAULT now(),
        stopped_at timestamptz
      );
      CREATE TABLE agency.tasks (
        id text PRIMARY KEY,
        executor text NOT NULL,
        request jsonb NOT NULL,
        state text NOT NULL DEFAULT 'queued',
        epoch integer NOT NULL DEFAULT 0,
        worker text,
        session_id text NOT NULL,
        result jsonb,
        error jsonb,
        rerun_on_loss boolean NOT NULL DEFAULT false,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX tasks_state ON agency.tasks (state, updated_at);
      CREATE TABLE agency.task_history (
        seq bigserial PRIMARY KEY,
        task_id text NOT NULL REFERENCES agency.tasks (id) ON DELETE CASCADE,
        epoch integer NOT NULL,
        event jsonb NOT NULL,
        at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX task_history_task ON agency.task_history (task_id, seq);`,
  },
];

/** The schema version this agency writes. */
export const FLEET_SCHEMA_VERSION = FLEET_MIGRATIONS.length;

// The advisory lock every migrating process takes (a constant key: one fleet schema per database).
const MIGRATION_LOCK = 'agency_fleet_migrations';

/**
 * Brings schema `agency` up to {@link FLEET_SCHEMA_VERSION} in one transaction holding an advisory lock, so
 * processes starting at once wait for each other and each migration runs once. Returns the versions it applied.
 * @throws AgencyError `invalid_config` when the database is at a newer version than this agency knows.
 */
export async function migrateFleet(pool: Pool, where: string): Promise<number[]> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await client.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [MIGRATION_LOCK]);
    await client.query('CREATE SCHEMA IF NOT EXISTS agency');
    await client.query(`CREATE TABLE IF NOT EXISTS agency.schema_migrations (
      version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`);
    const { rows } = await client.query<{ version: number }>(
      'SELECT coalesce(max(version), 0)::int AS version FROM agency.schema_migrations',
    );
    const at = rows[0]?.version ?? 0;
    if (at > FLEET_SCHEMA_VERSION)
      throw new AgencyError(
        'invalid_config',
        `${where}: the fleet's schema is at version ${at}, and this agency knows up to ${FLEET_SCHEMA_VERSION}; ` +
          'run a newer agency against this database',
        { details: { field: 'AGENCY_DATABASE_URL', version: at } },
      );
    const applied: number[] = [];
    for (let version = at + 1; version <= FLEET_SCHEMA_VERSION; version++) {
      const migration = FLEET_MIGRATIONS[version - 1]!;
      await client.query(migration.sql);
      await client.query('INSERT INTO agency.schema_migrations (version, name) VALUES ($1, $2)', [
        version,
        migration.name,
      ]);
      applied.push(version);
    }
    await client.query('COMMIT');
    return applied;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}
