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

describe("a worker config's role", () => {
  it('is taken by the builtin executor', async () => {
    const config = await loadWorkerConfig(await configFile('port: 9000\nexecutor: builtin\nrole: researcher\n'));
    expect(config.role).toBe('researcher');
  });

  it.each([
    [
      'another executor',
      'port: 9000\nexecutor: claude\nrole: researcher\n',
      /:3:1: role: only the builtin executor takes a role/,
    ],
    ['a path', 'port: 9000\nexecutor: builtin\nrole: ../../x\n', /:3:1: role: must be lowercase letters/],
  ])('is refused with %s, naming the line', async (_case, text, message) => {
    await expect(loadWorkerConfig(await configFile(text))).rejects.toThrow(message);
  });
});
