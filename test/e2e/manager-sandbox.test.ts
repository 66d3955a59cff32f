// The manager director's sandbox, with the real bwrap: what the child that runs a manager's turn may touch (its
// session dir, read-only the delegated workdirs; the host's loopback for the workers), what it may not (a delegated
// workdir's files, the data root's credentials, the rest of the host), the executor refusing to run without a
// sandbox, and `agency manager-turn` refusing a malformed job.
import { spawn } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ManagerSettings } from '../../src/fleet/directors/manager/manager-config.ts';
import { runSandboxedCli } from '../../src/fleet/executors/cli/run-cli.ts';
import {
  createManagerExecutor,
  managerInstall,
  managerSandbox,
} from '../../src/fleet/executors/manager/manager-executor.ts';
import { createBwrapSandbox } from '../../src/sandbox/bwrap-sandbox.ts';
import { checkSandbox } from '../../src/sandbox/check-sandbox.ts';
import { agency } from '../support/cli.ts';
import { executorRequest } from '../support/executor-fixture.ts';

const sandbox = createBwrapSandbox();
const status = await checkSandbox(sandbox);
const skip = status.ok ? '' : status.error.message;

let base: string;
afterEach(() => rmSync(base, { recursive: true, force: true }));

// A data root with a credential, a manager's session dir, a delegated workdir and the manager's config file.
function layout() {
  base = realpathSync(mkdtempSync(join(tmpdir(), 'agency-manager-sandbox-')));
  const root = join(base, 'root');
  mkdirSync(join(root, 'credentials'), { recursive: true });
  writeFileSync(join(root, 'credentials', 'github-token'), 'ghp_secret_canary\n', { mode: 0o600 });
  const manager = join(root, 'directors', 'manager');
  const workdir = join(manager, 'workspaces', 'session-1');
  mkdirSync(workdir, { recursive: true });
  writeFileSync(join(manager, 'config.yaml'), 'type: manager\nname: manager\nport: 9100\n');
  const delegated = join(base, 'projects', 'app');
  mkdirSync(delegated, { recursive: true });
  writeFileSync(join(delegated, 'main.ts'), 'export {};\n');
  return { root, manager, workdir, delegated, config: join(manager, 'config.yaml') };
}

// Each attempt inside the sandbox, as `name: ok` or `name: <error code>`.
const PROBE = `
const fs = require('node:fs');
const [workdir, delegated, credentials, config, url] = process.argv.slice(1);
const tries = {
  'write the session dir': () => fs.writeFileSync(workdir + '/clone.txt', 'x'),
  'read a delegated workdir': () => fs.readFileSync(delegated + '/main.ts'),
  'write a delegated workdir': () => fs.writeFileSync(delegated + '/main.ts', 'pwned'),
  'add to a delegated workdir': () => fs.writeFileSync(delegated + '/new.ts', 'pwned'),
  'read the credentials': () => fs.readFileSync(credentials + '/github-token'),
  'list the credentials': () => fs.readdirSync(credentials),
  'write its config': () => fs.writeFileSync(config, 'type: worker'),
  'write next to its session': () => fs.writeFileSync(workdir + '/../session-2.txt', 'x'),
};
const results = {};
for (const [name, attempt] of Object.entries(tries)) {
  try { attempt(); results[name] = 'ok'; } catch (error) { results[name] = error.code ?? String(error); }
}
fetch(url).then(async (answer) => { results['reach loopback'] = await answer.text(); },
  (error) => { results['reach loopback'] = String(error.cause?.code ?? error); })
  .finally(() => process.stdout.write(JSON.stringify(results)));
`;

describe.skipIf(skip !== '')(`the manager's sandbox${skip ? ` (skipped: ${skip})` : ''}`, () => {
  it('writes only its session dir, reads the delegated workdirs, never the credentials, and reaches loopback', async () => {
    const where = layout();
    const server = createServer((_request, response) => response.end('a worker'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/status`;
    const settings = { file: where.config, readOnlyPaths: [where.delegated] };
    const install = managerInstall();
    const options = managerSandbox({ settings, install, sandbox, workdir: where.workdir, operatorConfig: null });
    const run = await runSandboxedCli({
      ...options,
      command: [
        install.command[0]!,
        '-e',
        PROBE,
        where.workdir,
        where.delegated,
        join(where.root, 'credentials'),
      ].concat([where.config, url]),
      workdir: where.workdir,
      env: { PATH: '/usr/bin:/bin', HOME: where.workdir },
      timeoutMs: 30_000,
      killGraceMs: 1_000,
      signal: new AbortController().signal,
      onLine: () => {},
      outputLimitBytes: 64 * 1024,
    }).finally(() => server.close());
    expect(run, run.stderr).toMatchObject({ outcome: 'exited', exitCode: 0 });
    const results = JSON.parse(run.stdout) as Record<string, string>;
    expect(results).toEqual({
      'write the session dir': 'ok',
      'read a delegated workdir': 'ok',
      'write a delegated workdir': 'EROFS',
      'add to a delegated workdir': 'EROFS',
      'read the credentials': 'ENOENT',
      'list the credentials': 'ENOENT',
      'write its config': 'EROFS',
      // Outside its binds the sandbox's own empty dirs take it: nothing reaches the host (checked below).
      'write next to its session': 'ok',
      'reach loopback': 'a worker',
    });
    expect(readFileSync(join(where.delegated, 'main.ts'), 'utf8')).toBe('export {};\n');
    expect(readFileSync(join(where.workdir, 'clone.txt'), 'utf8')).toBe('x');
    expect(existsSync(join(where.manager, 'workspaces', 'session-2.txt'))).toBe(false);
    expect(readFileSync(where.config, 'utf8')).toContain('type: manager');
  });
});

describe('the manager executor without a sandbox', () => {
  it('fails its check and each task with sandbox_error, starting no turn', async () => {
    const where = layout();
    const settings = { file: where.config, readOnlyPaths: [] } as unknown as ManagerSettings;
    const executor = createManagerExecutor({
      settings,
      model: 'openai-compatible:http://127.0.0.1:9/v1#m',
      governance: () => Promise.reject(new Error('not reached')),
      sandbox: createBwrapSandbox({ bwrapPath: '/nonexistent/bwrap' }),
    });
    expect(await executor.check()).toMatchObject({
      ok: false,
      problem: expect.stringContaining("The manager's sandbox cannot run") as unknown,
    });
    const { request } = executorRequest({ prompt: 'a goal', sessionId: 'session-1', workdir: where.workdir, env: {} });
    const result = await executor.run(request);
    expect(result.error).toMatchObject({ type: 'sandbox_error' });
    expect(result.error?.message).toContain('/nonexistent/bwrap');
    expect(readdirSync(where.workdir)).toEqual([]);
  });
});

describe('agency manager-turn', () => {
  it.each([
    ['not JSON', '{', 'this is not JSON'],
    ['an unknown field', JSON.stringify(job({ extra: true })), 'Unrecognized key: "extra"'],
    ['missing its config file', JSON.stringify(job({ config_file: undefined })), 'the job\'s "config_file"'],
    ['a relative root', JSON.stringify(job({ root: 'turn-1' })), 'the job\'s "root"'],
  ])('refuses a job that is %s, with exit code 2', async (_what, input, message) => {
    const answer = await runTurnCommand('/tmp/turn-1', input);
    expect(answer.code).toBe(2);
    expect(answer.stderr).toContain(message);
  });

  it('refuses a job for another root than the one it was started on', async () => {
    const answer = await runTurnCommand('/tmp/turn-2', JSON.stringify(job({})));
    expect(answer).toMatchObject({ code: 2, stderr: expect.stringContaining('the job is for /tmp/turn-1') as unknown });
  });
});

function job(change: Record<string, unknown>) {
  return {
    ...{ version: 1, config_file: '/tmp/config.yaml', root: '/tmp/turn-1', resumed: false, session_id: 's' },
    ...{ model: 'openai-compatible:http://127.0.0.1:9/v1#m', operator_config: null },
    ...change,
  };
}

function runTurnCommand(root: string, input: string): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [agency, 'manager-turn', root], { stdio: ['pipe', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('exit', (code) => resolve({ code, stderr }));
    child.stdin.end(input);
  });
}
