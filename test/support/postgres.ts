// A throwaway PostgreSQL cluster for tests and benchmarks: initdb in a temp dir, a free port on 127.0.0.1, its unix
// socket in the same dir, `pg_ctl start -w`, and a stop (with the dir removed) on `stop()` or when the process
// exits. It works as a normal user and as root: initdb and postgres refuse root, so then they run as the `postgres`
// user (or $AGENCY_PG_USER), which gets the temp dir. `stopServer()`/`startServer()`/`restart()` stop and start the
// same cluster on the same port and data dir, for tests of what survives a database restart. See docs/benchmarks.md.
import { type SpawnOptions, spawn, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** A running cluster. */
export type TempPostgres = {
  /** `postgres://agency@127.0.0.1:<port>/postgres`: a superuser with trust authentication, for this machine only. */
  url: string;
  host: string;
  port: number;
  user: string;
  database: string;
  /** The server's major version, e.g. 15. */
  version: number;
  /** The cluster's data directory (it holds `postmaster.pid`). */
  dataDir: string;
  /** Stops the server (`pg_ctl stop -m fast`: connections are cut) and keeps its files and port for {@link startServer}. */
  stopServer(): Promise<void>;
  /** Starts the stopped server again on the same port and data dir; resolves once it accepts connections. */
  startServer(): Promise<void>;
  /** {@link stopServer} then {@link startServer}. */
  restart(): Promise<void>;
  /** Stops the server and removes its files; safe to call twice. */
  stop(): Promise<void>;
};

/** Options for {@link startPostgres}. */
export type StartPostgresOptions = {
  /** Where `initdb` and `pg_ctl` are. @default $AGENCY_PG_BIN, else the newest /usr/lib/postgresql/<n>/bin */
  binDir?: string;
  /** Extra `postgres -c` settings, e.g. `{ shared_buffers: '64MB' }`. Durability settings are left at their defaults. */
  settings?: Record<string, string>;
};

/**
 * Starts a throwaway cluster and returns how to reach it.
 * @throws Error naming what is missing (no PostgreSQL binaries, no `postgres` user when running as root) or the
 * server's log when it does not start.
 * @example
 * const pg = await startPostgres(); try { … new pg.Client({ connectionString: pg.url }) … } finally { await pg.stop(); }
 */
export async function startPostgres({
  binDir = findBinDir(),
  settings = {},
}: StartPostgresOptions = {}): Promise<TempPostgres> {
  const owner = process.getuid?.() === 0 ? serverUser() : undefined;
  const dir = mkdtempSync(path.join(tmpdir(), 'agency-pg-'));
  if (owner) chownSync(dir, owner.uid, owner.gid);
  const data = path.join(dir, 'data');
  const as: SpawnOptions = {
    ...(owner ? { uid: owner.uid, gid: owner.gid } : {}),
    env: { ...process.env, LC_ALL: 'C' },
  };
  const user = 'agency';
  let stopped = false;
  const stopSync = () => {
    if (stopped) return;
    stopped = true;
    spawnSync(path.join(binDir, 'pg_ctl'), ['stop', '-D', data, '-m', 'immediate', '-s'], as);
    rmSync(dir, { recursive: true, force: true });
  };
  process.once('exit', stopSync);
  try {
    await run(path.join(binDir, 'initdb'), ['-D', data, '-U', user, '--auth=trust', '-E', 'UTF8', '--no-sync'], as);
    const port = await freePort();
    const options = [
      `-p ${port}`,
      `-k ${dir}`,
      '-c listen_addresses=127.0.0.1',
      ...Object.entries(settings).map(([key, value]) => `-c ${key}=${value}`),
    ].join(' ');
    const log = path.join(dir, 'server.log');
    const pgCtl = path.join(binDir, 'pg_ctl');
    const startServer = () =>
      run(pgCtl, ['start', '-w', '-t', '60', '-D', data, '-l', log, '-o', options], as).catch((error: unknown) => {
        throw new Error(`${String(error)}\n${existsSync(log) ? readFileSync(log, 'utf8') : ''}`);
      });
    const stopServer = () => run(pgCtl, ['stop', '-D', data, '-m', 'fast', '-w', '-s'], as);
    await startServer();
    const version = Number(readFileSync(path.join(data, 'PG_VERSION'), 'utf8').trim());
    return {
      url: `postgres://${user}@127.0.0.1:${port}/postgres`,
      host: '127.0.0.1',
      port,
      user,
      database: 'postgres',
      version,
      dataDir: data,
      stopServer,
      startServer,
      restart: async () => {
        await stopServer();
        await startServer();
      },
      stop: async () => {
        process.removeListener('exit', stopSync);
        if (stopped) return;
        // A smart shutdown first: clients still closing (a pool's last connections) finish instead of being
        // terminated under a pool that has stopped listening for errors; then a fast one for any left over.
        await run(pgCtl, ['stop', '-D', data, '-m', 'smart', '-w', '-t', '5', '-s'], as)
          .catch(stopServer)
          .catch(() => undefined);
        stopped = true;
        rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    stopSync();
    process.removeListener('exit', stopSync);
    throw error;
  }
}

function findBinDir(): string {
  const given = process.env.AGENCY_PG_BIN;
  if (given) return given;
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root)
    ? readdirSync(root)
        .filter((name) => existsSync(path.join(root, name, 'bin', 'initdb')))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  if (versions[0] === undefined) {
    throw new Error('PostgreSQL is not installed: no /usr/lib/postgresql/<n>/bin/initdb (apt-get install postgresql)');
  }
  return path.join(root, versions[0], 'bin');
}

// initdb and postgres refuse to run as root; the cluster then belongs to this user.
function serverUser(): { uid: number; gid: number } {
  const name = process.env.AGENCY_PG_USER ?? 'postgres';
  const line = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((entry) => entry.startsWith(`${name}:`));
  const [, , uid, gid] = line?.split(':') ?? [];
  if (uid === undefined || gid === undefined) {
    throw new Error(`Running as root, PostgreSQL needs a user to run as, and there is no "${name}" user`);
  }
  return { uid: Number(uid), gid: Number(gid) };
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}

function run(command: string, args: string[], options: SpawnOptions): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('error', reject);
    child.once('exit', (code) =>
      code === 0 ? resolve() : reject(new Error(`${path.basename(command)} exited ${code}: ${output.trim()}`)),
    );
  });
}
