// Starts the real `agency director <name>` in a child process (on a free port) and waits for the URL it prints.
import { type ChildProcess, spawn } from 'node:child_process';
import { agency } from './cli.ts';

/** A running `agency director` process. */
export type DirectorProcess = {
  url: string;
  child: ChildProcess;
  /** Resolves with the exit code once the process ends. */
  exited: Promise<number | null>;
  output: () => string;
};

/** Spawns `agency director <name> --root <root> --port 0` with `env` added to this process's environment. */
export async function startDirectorProcess(
  root: string,
  name: string,
  env: NodeJS.ProcessEnv = {},
): Promise<DirectorProcess> {
  const child = spawn(process.execPath, [agency, 'director', name, '--root', root, '--port', '0'], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  const url = await new Promise<string>((resolve, reject) => {
    const look = () => {
      const match = /^agency director \S+: (http:\/\/\S+)/m.exec(output);
      if (match) resolve(match[1]!);
    };
    child.stdout.on('data', look);
    void exited.then(() => reject(new Error(`agency director exited:\n${output}`)));
  });
  return { url, child, exited, output: () => output };
}
