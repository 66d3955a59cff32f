// A throwaway redis-server for tests and benchmarks: a free port on 127.0.0.1, its files in a temp dir, no
// persistence (no RDB snapshots, no AOF), and a stop (with the dir removed) on `stop()` or when the process exits.
// The binary is $AGENCY_REDIS_SERVER or `redis-server` on PATH (scripts/ensure-redis.sh installs it).
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** A running server. */
export type TempRedis = {
  /** `redis://127.0.0.1:<port>`. */
  url: string;
  port: number;
  /** The server process, e.g. to kill it in a test. */
  process: ChildProcess;
  /** Stops the server and removes its files; safe to call twice. */
  stop(): Promise<void>;
};

/** The redis-server binary, or a reason it cannot run here (for a test to skip with). */
export function findRedisServer(): { binary: string } | { missing: string } {
  const binary = process.env.AGENCY_REDIS_SERVER || 'redis-server';
  const probe = spawnSync(binary, ['--version'], { encoding: 'utf8' });
  if (probe.status === 0) return { binary };
  return {
    missing: `${binary} cannot run (${probe.error?.message ?? probe.stderr.trim()}); bash scripts/ensure-redis.sh installs it`,
  };
}

/**
 * Starts a throwaway redis-server and waits until it answers PING.
 * @throws Error naming the missing binary, or with the server's output when it does not start.
 */
export async function startRedis(options: { password?: string } = {}): Promise<TempRedis> {
  const found = findRedisServer();
  if ('missing' in found) throw new Error(found.missing);
  const dir = mkdtempSync(path.join(tmpdir(), 'agency-redis-'));
  const port = await freePort();
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'no'];
  if (options.password) args.push('--requirepass', options.password);
  const child = spawn(found.binary, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  let stopped = false;
  const stopSync = () => {
    if (stopped) return;
    stopped = true;
    child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  };
  process.once('exit', stopSync);
  try {
    await waitForPort(port, child, () => output);
  } catch (error) {
    stopSync();
    process.removeListener('exit', stopSync);
    throw error;
  }
  const auth = options.password ? `:${encodeURIComponent(options.password)}@` : '';
  return {
    url: `redis://${auth}127.0.0.1:${port}`,
    port,
    process: child,
    stop: async () => {
      process.removeListener('exit', stopSync);
      if (stopped) return;
      const exited = new Promise((resolve) =>
        child.exitCode !== null || child.signalCode !== null ? resolve(null) : child.once('exit', resolve),
      );
      child.kill('SIGTERM');
      await exited;
      stopSync();
    },
  };
}

async function waitForPort(port: number, child: ChildProcess, output: () => string): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`redis-server exited ${child.exitCode}: ${output().trim()}`);
    if (await answersPing(port)) return;
    if (Date.now() > deadline) throw new Error(`redis-server did not answer on port ${port}: ${output().trim()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function answersPing(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ port, host: '127.0.0.1' });
    let reply = '';
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.on('data', (chunk: Buffer) => {
      reply += chunk.toString();
      // A server with a password answers NOAUTH: it is up all the same.
      if (reply.includes('\r\n')) {
        socket.destroy();
        resolve(reply.startsWith('+PONG') || reply.includes('NOAUTH'));
      }
    });
    socket.once('error', () => resolve(false));
  });
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
