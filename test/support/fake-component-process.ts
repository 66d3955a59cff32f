// Fake components as child processes, so the real CLI's port scan finds them beside real workers.
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';

const MAIN = join(import.meta.dirname, 'fake-component-main.ts');

/** A fake component in its own process. */
export type FakeComponentProcess = {
  url: string;
  port: number;
  child: ChildProcess;
  output(): string;
  /** Resolves with the exit code (or signal) once the process has ended. */
  exited: Promise<number | string | null>;
  stop(): Promise<void>;
};

/** Spawns `fake-component-main.ts --port <port> …args` and waits for its URL line. */
export async function startFakeComponentProcess(port: number, args: string[] = []): Promise<FakeComponentProcess> {
  const child = spawn(process.execPath, [MAIN, '--port', String(port), ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | string | null>((resolve) =>
    child.once('exit', (code, signal) => resolve(code ?? signal)),
  );
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the fake component did not start:\n${output}`)), 20_000);
    child.stdout.on('data', () => {
      const match = /fake-component: (http:\/\/\S+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    });
    void exited.then(() => reject(new Error(`the fake component exited:\n${output}`)));
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
