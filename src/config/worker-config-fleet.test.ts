import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { agencyRootAt } from './agency-root.ts';
import { loadWorkerConfig, workerConfigPath } from './worker-config.ts';

async function configFile(text: string): Promise<string> {
  const root = agencyRootAt(await mkdtemp(join(tmpdir(), 'agency-config-')));
  const file = workerConfigPath(root, 'agent-01');
  await mkdir(join(root.agents, 'agent-01'), { recursive: true });
  await writeFile(file, text);
  return file;
}

describe("a worker config's fleet settings", () => {
  it('take a shared sessions directory, none by default', async () => {
    const base = 'port: 9000\nexecutor: builtin\n';
    expect((await loadWorkerConfig(await configFile(base))).sharedSessions).toBeUndefined();
    const config = await loadWorkerConfig(await configFile(`${base}fleet:\n  shared_sessions: /mnt/agency-sessions\n`));
    expect(config.sharedSessions).toBe('/mnt/agency-sessions');
  });

  it.each([
    ['a relative path', 'fleet:\n  shared_sessions: sessions\n', /fleet\.shared_sessions: must be an absolute path/],
    [
      'an unknown key',
      'fleet:\n  shared: /mnt/x\n',
      /:4:3: fleet.shared: unknown field; the fields here are shared_sessions/,
    ],
    ['not a map', 'fleet: /mnt/x\n', /fleet: /],
  ])('refuse %s, naming the field', async (_case, text, message) => {
    await expect(loadWorkerConfig(await configFile(`port: 9000\nexecutor: builtin\n${text}`))).rejects.toThrow(message);
  });
});
