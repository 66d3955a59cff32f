import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { agencyRootAt } from '../../../config/agency-root.ts';
import { hostedConfigPath, loadHostedConfig } from './hosted-config.ts';
import { loadManagerConfig } from './manager-config.ts';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agency-manager-config-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

async function file(text: string, at = join(dir, 'directors', 'manager', 'config.yaml')) {
  await mkdir(join(at, '..'), { recursive: true });
  await writeFile(at, text);
  return at;
}
const message = (promise: Promise<unknown>) =>
  promise.then(
    () => 'loaded',
    (error: unknown) => (error as Error).message.replaceAll(`${dir}/directors/manager/config.yaml:`, ''),
  );

describe('the manager director config', () => {
  it('reads database: and labels: for its delegations, and refuses a password others may read', async () => {
    const base = 'type: manager\nname: boss\nport: 9100\nmodel: anthropic:claude-sonnet-4-5\n';
    const config = await loadManagerConfig(await file(`${base}database: postgres://db/fleet\nlabels: [gpu]\n`));
    expect(config.manager).toMatchObject({ database: 'postgres://db/fleet', labels: ['gpu'] });
    expect(config.worker.labels).toEqual([]);
    const loose = await file(`${base}database: postgres://u:pw@db/fleet\n`);
    await chmod(loose, 0o644);
    expect(await message(loadManagerConfig(loose))).toContain(
      'database: the URL holds a password and the file is readable by others (mode 0644)',
    );
  });

  it('resolves into the daemon that hosts it (executor manager) and the manager settings', async () => {
    const config = await loadManagerConfig(
      await file(
        'type: manager\nname: boss\nport: 9100\nmodel: anthropic:claude-sonnet-4-5\napprovals: auto\n' +
          'sandbox:\n  read_only_paths: [/srv/work]\nbudgets:\n  max_iterations: 40\n  max_time: 30m\n',
      ),
    );
    expect(config.worker).toMatchObject({
      name: 'boss',
      port: 9100,
      executor: 'manager',
      model: 'anthropic:claude-sonnet-4-5',
      timeoutMs: 7_200_000,
      sessionDir: join(dir, 'directors', 'manager', 'workspaces'),
    });
    expect(config.manager).toMatchObject({
      approvals: 'auto',
      network: false,
      readOnlyPaths: ['/srv/work'],
      budgets: { maxIterations: 40, maxTimeMs: 1_800_000 },
      waitForWorkerMs: 60_000,
      discovery: { method: 'port_scan', port_range: [9000, 9199] },
    });
  });

  it('names the line, the field and the fix of each bad field', async () => {
    const problems = await message(
      loadManagerConfig(
        await file(
          'type: scheduler\nname: boss\nport: 99999\napprovals: maybe\nexecutor: claude\nsandbox:\n  read_only_paths: [rel/dir]\n',
        ),
      ),
    );
    expect(problems.split('\n')).toEqual([
      '1:1: type: must be manager for a manager director',
      '3:1: port: must be a port number from 1 to 65535, e.g. 9000',
      '4:1: approvals: must be file or auto',
      '7:21: sandbox.read_only_paths[0]: must be an absolute path, e.g. /opt/tools',
      expect.stringMatching(/^5:1: executor: unknown field; the fields here are type, name, port, /),
    ]);
    const clash = await message(
      loadManagerConfig(
        await file('type: manager\nname: boss\nport: 9100\ncredentials:\n  a-token: TOKEN\n  b-token: TOKEN\n'),
      ),
    );
    expect(clash).toContain('credentials.b-token: TOKEN is already the variable of credential "a-token"');
  });

  it('is what agency worker <name> runs when there is no worker of that name; a worker config stays a worker', async () => {
    const root = agencyRootAt(dir);
    const manager = await file('type: manager\nname: boss\nport: 9100\n');
    expect(hostedConfigPath(root, 'manager')).toBe(manager);
    expect((await loadHostedConfig(manager)).executor).toBe('manager');
    const worker = await file('executor: builtin\nport: 9001\n', join(dir, 'agents', 'manager', 'config.yaml'));
    expect(hostedConfigPath(root, 'manager')).toBe(worker);
    expect((await loadHostedConfig(worker)).executor).toBe('builtin');
    // A worker config may not name the manager's executor: the manager is a director.
    await file('executor: manager\nport: 9001\n', worker);
    expect(await message(loadHostedConfig(worker))).toContain('executor: must be one of builtin, claude, codex');
    await file('type: manager\nport: [\n', manager);
    expect(await message(loadHostedConfig(manager))).toMatch(/config\.yaml|YAML/);
  });
});
