// Starts the real `agency serve` in a child process, as an operator would, and talks to it over HTTP.
import { type ChildProcess, spawn } from 'node:child_process';
import { agency } from './cli.ts';

export type ServeProcess = {
  url: string;
  child: ChildProcess;
  /** A fetch with the token and JSON. */
  api(path: string, init?: { method?: string; json?: unknown; headers?: Record<string, string> }): Promise<Response>;
  /** Sends a signal and waits for the process to end; returns its exit code. */
  kill(signal: NodeJS.Signals): Promise<number | null>;
  output(): string;
};

/** Spawns `agency serve --port 0 …args` and waits for the line with its URL. */
export async function startServeProcess(
  args: string[],
  token: string,
  env: Record<string, string> = {},
): Promise<ServeProcess> {
  const child = spawn(process.execPath, [agency, 'serve', '--port', '0', ...args], {
    env: { ...process.env, AGENCY_TOKEN: token, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`agency serve did not start:\n${output}`)), 20_000);
    const look = () => {
      const match = /agency serve: (https?:\/\/\S+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    };
    child.stdout.on('data', look);
    void exited.then(() => reject(new Error(`agency serve exited:\n${output}`)));
  });
  return {
    url,
    child,
    output: () => output,
    api: (path, init = {}) =>
      fetch(`${url}${path}`, {
        method: init.method ?? 'GET',
        headers: {
          authorization: `Bearer ${token}`,
          ...(init.json === undefined ? {} : { 'content-type': 'application/json' }),
          ...init.headers,
        },
        ...(init.json === undefined ? {} : { body: JSON.stringify(init.json) }),
      }),
    async kill(signal) {
      child.kill(signal);
      // A server that does not stop is a failure that names itself, not a test left hanging.
      const late = setTimeout(() => child.kill('SIGKILL'), 30_000);
      const code = await exited.finally(() => clearTimeout(late));
      if (code === null && signal !== 'SIGKILL') throw new Error(`agency serve did not stop on ${signal}:\n${output}`);
      // Its last lines may still be in the pipe when it exits (a child it started may hold the pipe open, so 'close'
      // is not awaited): read what is left, for a moment.
      if (!child.stdout.readableEnded)
        await new Promise((resolve) => setTimeout(resolve, 500).unref() && child.stdout.once('end', resolve));
      return code;
    },
  };
}
