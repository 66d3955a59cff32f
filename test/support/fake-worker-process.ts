// Fake workers as child processes on free ports of one block, so the real CLI's port scan finds them.
import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';

const MAIN = join(import.meta.dirname, 'fake-worker-main.ts');

/** A fake worker in its own process. */
export type FakeWorkerProcess = {
  url: string;
  port: number;
  child: ChildProcess;
  output(): string;
  /** Resolves with the exit code (or signal) once the process has ended. */
  exited: Promise<number | string | null>;
  stop(): Promise<void>;
};

/** Spawns `fake-worker-main.ts --port <port> …args` and waits for its URL line. */
export async function startFakeWorkerProcess(port: number, args: string[] = []): Promise<FakeWorkerProcess> {
  const child = spawn(process.execPath, [MAIN, '--port', String(port), ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | string | null>((resolve) =>
    child.once('exit', (code, signal) => resolve(code ?? signal)),
  );
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the fake worker did not start:\n${output}`)), 20_000);
    child.stdout.on('data', () => {
      const match = /fake-worker: (http:\/\/\S+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    });
    void exited.then(() => reject(new Error(`the fake worker exited:\n${output}`)));
  });
  return {
    url,
    port,
    child,
    exited,
    output: () => output,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
}

/**
 * A block of `size` consecutive ports of 127.0.0.1 that are all free now, in 20000–29999 (below the ephemeral range,
 * so an outgoing connection does not take one meanwhile).
 */
export async function freePortBlock(size: number): Promise<{ from: number; to: number }> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const from = 20_000 + Math.floor(Math.random() * (10_000 - size));
    const ports = Array.from({ length: size }, (_, index) => from + index);
    if ((await Promise.all(ports.map(isFree))).every(Boolean)) return { from, to: from + size - 1 };
  }
  throw new Error('no free block of ports');
}

function isFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}
