// Starts the real `agency worker` in a child process with its own data root, and talks to it over HTTP.
import { type ChildProcess, spawn } from 'node:child_process';
import { chmod, mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { agency } from './cli.ts';

/** The scripted executor module the worker loads through its test hook. */
export const SCRIPTED_EXECUTOR = join(import.meta.dirname, 'scripted-executor.ts');

export type WorkerProcess = {
  url: string;
  child: ChildProcess;
  /** A fetch with JSON (and the token, when given). */
  api(path: string, init?: { method?: string; json?: unknown; token?: string }): Promise<Response>;
  json<T = Record<string, unknown>>(
    path: string,
    init?: { method?: string; json?: unknown; token?: string },
  ): Promise<T>;
  /** Resolves with the exit code once the process ends. */
  exited: Promise<number | null>;
  kill(signal: NodeJS.Signals): Promise<number | null>;
  output(): string;
};

/** A data root with a worker `name` whose config is `config` (YAML), plus credential files (mode 0600 unless said). */
export async function workerRoot(
  name: string,
  config: string,
  credentials: Record<string, { value: string; mode?: number }> = {},
): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), 'agency-worker-e2e-'));
  await mkdir(join(root, 'agents', name), { recursive: true });
  await writeFile(join(root, 'agents', name, 'config.yaml'), config);
  await mkdir(join(root, 'credentials'), { recursive: true, mode: 0o700 });
  for (const [file, { value, mode = 0o600 }] of Object.entries(credentials)) {
    await writeFile(join(root, 'credentials', file), `${value}\n`);
    await chmod(join(root, 'credentials', file), mode);
  }
  return root;
}

/**
 * Spawns `agency worker <name> --root <root> --port <port>` (0: a free one) and waits for its URL (and, unless told not
 * to, `ready`). It runs the scripted executor unless `scripted: false`, which leaves it the one its config names (a
 * real CLI).
 */
export async function startWorkerProcess(
  name: string,
  root: string,
  {
    env = {},
    waitReady = true,
    args = [],
    scripted = true,
    port = 0,
  }: { env?: Record<string, string>; waitReady?: boolean; args?: string[]; scripted?: boolean; port?: number } = {},
): Promise<WorkerProcess> {
  const parentEnv = { ...process.env };
  delete parentEnv['AGENCY_WORKER_TEST_EXECUTOR'];
  const hook = scripted ? { AGENCY_WORKER_TEST_EXECUTOR: SCRIPTED_EXECUTOR } : {};
  const child = spawn(process.execPath, [agency, 'worker', name, '--root', root, '--port', String(port), ...args], {
    env: { ...parentEnv, ...hook, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`agency worker did not start:\n${output}`)), 60_000);
    const look = () => {
      const match = /^agency worker \S+: (http:\/\/\S+)/m.exec(output);
      if (match && (!waitReady || /^ready: /m.test(output))) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    };
    child.stdout.on('data', look);
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`agency worker exited:\n${output}`));
    });
  });
  const api: WorkerProcess['api'] = (path, init = {}) =>
    fetch(`${url}${path}`, {
      method: init.method ?? (init.json === undefined ? 'GET' : 'POST'),
      headers: {
        ...(init.json === undefined ? {} : { 'content-type': 'application/json' }),
        ...(init.token ? { authorization: `Bearer ${init.token}` } : {}),
      },
      ...(init.json === undefined ? {} : { body: JSON.stringify(init.json) }),
    });
  return {
    url,
    child,
    api,
    json: async (path, init) => (await (await api(path, init)).json()) as never,
    exited,
    async kill(signal) {
      child.kill(signal);
      return exited;
    },
    output: () => output,
  };
}

/** Polls `GET /task/:id` until its state is one of `states`; returns the task. */
export async function waitForState(
  worker: WorkerProcess,
  taskId: string,
  states: readonly string[],
  timeoutMs = 15_000,
): Promise<Record<string, unknown>> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const task = await worker.json(`/task/${taskId}`);
    if (states.includes(task.state as string)) return task;
    if (Date.now() > end) throw new Error(`task ${taskId} is ${String(task.state)}, not ${states.join('|')}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** Polls until the task's executor has started (its `started` event is in the task's log). */
export async function waitForExecutor(worker: WorkerProcess, taskId: string, timeoutMs = 15_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const record = await worker.json<{ log: Array<{ message: string }> }>(`/history/${taskId}`);
    if (record.log.some((line) => line.message.startsWith('scripted executor:'))) return;
    if (Date.now() > end) throw new Error(`the executor of ${taskId} did not start`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
