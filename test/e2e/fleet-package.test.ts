// `agency/fleet` as a user imports it, in a fresh Node process: start a worker from its config (the scripted
// executor through the test hook's option), find it by discovery, run a task with the worker client, shut it down.
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SCRIPTED_EXECUTOR } from '../support/worker-process.ts';

let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'agency-fleet-package-'));
  await mkdir(join(root, 'agents', 'pkg'), { recursive: true });
  await writeFile(join(root, 'agents', 'pkg', 'config.yaml'), 'port: 9000\nexecutor: claude\n');
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

const SCRIPT = `
import { agencyRootAt, createDiscovery, createWorkerClient, loadWorkerConfig, startWorker, workerConfigPath } from 'agency/fleet';
const [root, executorModule] = process.argv.slice(1);
const data = agencyRootAt(root);
const worker = await startWorker({
  config: await loadWorkerConfig(workerConfigPath(data, 'pkg')),
  root: data,
  version: '1.0.0',
  port: 0,
  executorModule,
});
await worker.ready;
const [found] = await createDiscovery({ ports: null, urls: [worker.url] }).refresh();
const client = createWorkerClient(found.url);
const { task_id } = await client.submit({ prompt: 'hello' });
let task = await client.task(task_id);
while (task.state === 'working') task = await client.task(task_id);
const ended = await client.end(task_id);
await client.shutdown();
await worker.closed;
console.log(JSON.stringify({ name: found.status.name, health: found.health, state: task.state, output: ended.output, pid: found.status.config.pid === process.pid }));
`;

describe('agency/fleet', () => {
  it('starts a worker, finds it, runs a task through its client and shuts it down', async () => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--conditions=agency-source', '--input-type=module', '-e', SCRIPT, root, SCRIPTED_EXECUTOR],
      { cwd: new URL('../..', import.meta.url), encoding: 'utf8' },
    );
    expect(JSON.parse(stdout)).toEqual({
      name: 'pkg',
      health: 'green',
      state: 'idle',
      output: 'done: hello',
      pid: true,
    });
  });

  it('names the config file and field when the config is wrong', async () => {
    await writeFile(join(root, 'agents', 'pkg', 'config.yaml'), 'port: 80000\nexecutor: claude\n');
    const failed = await promisify(execFile)(
      process.execPath,
      ['--conditions=agency-source', '--input-type=module', '-e', SCRIPT, root, SCRIPTED_EXECUTOR],
      { cwd: new URL('../..', import.meta.url), encoding: 'utf8' },
    ).catch((error: { stderr: string }) => error);
    expect('stderr' in failed ? failed.stderr : '').toMatch(/config\.yaml.*port/s);
  });
});
