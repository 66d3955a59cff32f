// Starts a throwaway PostgreSQL cluster (test/support/postgres.ts), prints how to reach it, and keeps it until
// Ctrl-C or SIGTERM, then stops it and removes its files. Works as root (the server runs as `postgres`).
//   node scripts/start-postgres.ts
import { startPostgres } from '../test/support/postgres.ts';

const pg = await startPostgres();
process.stdout.write(
  `PostgreSQL ${pg.version} is up.\n  DATABASE_URL=${pg.url}\n  PGHOST=${pg.host} PGPORT=${pg.port} PGUSER=${pg.user} PGDATABASE=${pg.database}\n` +
    'Ctrl-C stops it and removes its files.\n',
);
await new Promise<void>((resolve) => {
  process.once('SIGINT', resolve);
  process.once('SIGTERM', resolve);
});
await pg.stop();
