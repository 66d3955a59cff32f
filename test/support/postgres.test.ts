import { existsSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serverCpuMs } from '../../bench/queue/capacity.ts';
import { startPostgres, type TempPostgres } from './postgres.ts';

// The throwaway cluster's restart: same port, same data, connections cut while it is down.
let server: TempPostgres;

beforeAll(async () => {
  server = await startPostgres();
}, 60_000);

afterAll(async () => {
  await server?.stop();
});

async function query(sql: string): Promise<pg.QueryResult> {
  const client = new pg.Client({ connectionString: server.url });
  await client.connect();
  try {
    return await client.query(sql);
  } finally {
    await client.end();
  }
}

describe('startPostgres restart', () => {
  it('keeps committed rows and the port across restart(), and cuts the connections open at the stop', async () => {
    await query('CREATE TABLE kept (n int); INSERT INTO kept VALUES (1), (2)');
    const open = new pg.Client({ connectionString: server.url });
    const cut = new Promise<Error>((resolve) => open.on('error', resolve));
    await open.connect();
    await server.restart();
    expect((await cut).message).toMatch(/terminat|shut ?down|connection/i);
    await open.end().catch(() => undefined);
    expect((await query('SELECT count(*)::int AS n FROM kept')).rows[0]).toEqual({ n: 2 });
    expect(server.url).toContain(`:${server.port}/`);
  }, 60_000);

  it('refuses connections between stopServer() and startServer(), then serves the same data', async () => {
    await server.stopServer();
    expect(existsSync(path.join(server.dataDir, 'PG_VERSION'))).toBe(true);
    expect(existsSync(path.join(server.dataDir, 'postmaster.pid'))).toBe(false);
    await expect(query('SELECT 1')).rejects.toThrow(/ECONNREFUSED/);
    await server.startServer();
    expect((await query('SELECT count(*)::int AS n FROM kept')).rows[0]).toEqual({ n: 2 });
  }, 60_000);

  it('a second startServer() on a running cluster fails and names pg_ctl, leaving the server up', async () => {
    await expect(server.startServer()).rejects.toThrow(/pg_ctl exited/);
    expect((await query('SELECT 1 AS one')).rows[0]).toEqual({ one: 1 });
  }, 60_000);

  it('counts the server CPU of its backends (the queue benchmark reads it)', async () => {
    const before = serverCpuMs(server.dataDir);
    await query('SELECT count(*) FROM generate_series(1, 3000000)');
    expect(serverCpuMs(server.dataDir)).toBeGreaterThan(before);
  }, 60_000);
});
