import { chmod, mkdir, mkdtemp, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { agencyRootAt } from '../../config/agency-root.ts';
import { fetchWithTokens, instanceTokens } from './worker-tokens.ts';

const SERVER_TOKEN = 'the-server-token-0123456789';

async function rootWith(instances: Record<string, { config: string; token?: string; mode?: number }>) {
  const root = await mkdtemp(join(tmpdir(), 'agency-tokens-'));
  for (const [name, { config, token, mode = 0o600 }] of Object.entries(instances)) {
    const dir = join(root, 'agents', name);
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, 'config.yaml'), config);
    if (token !== undefined) {
      await writeFile(join(dir, 'token'), `${token}\n`);
      await chmod(join(dir, 'token'), mode);
    }
  }
  return agencyRootAt(root);
}

describe('instanceTokens', () => {
  it("gives a worker's token only to its own port on its bind address (any local one for 0.0.0.0)", async () => {
    const root = await rootWith({
      wide: { config: 'port: 9001\nbind: 0.0.0.0\nexecutor: claude\n', token: 'wide-token-0123456789' },
      lan: { config: 'port: 9002\nbind: 10.0.0.5\nexecutor: claude\n', token: 'lan-token-0123456789' },
      local: { config: 'port: 9003\nexecutor: claude\n', token: 'unused-token-0123456789' },
    });
    const tokens = instanceTokens({ root, serverTokens: [SERVER_TOKEN] });
    expect(await tokens('http://127.0.0.1:9001')).toBe('wide-token-0123456789');
    expect(await tokens('http://localhost:9001')).toBe('wide-token-0123456789');
    expect(await tokens('http://[::1]:9001')).toBe('wide-token-0123456789');
    expect(await tokens('http://10.0.0.5:9002')).toBe('lan-token-0123456789');
    // Not where that worker listens: whatever answers on 127.0.0.1:9002 is another process.
    expect(await tokens('http://127.0.0.1:9002')).toBeUndefined();
    // Another port, another host, or a worker on loopback (which needs no token): nothing.
    expect(await tokens('http://127.0.0.1:9004')).toBeUndefined();
    expect(await tokens('http://10.0.0.6:9002')).toBeUndefined();
    expect(await tokens('http://evil.example:9001')).toBeUndefined();
    expect(await tokens('http://127.0.0.1:9003')).toBeUndefined();
    expect(await tokens('not a url')).toBeUndefined();
  });

  it("skips a token readable by others, a linked one, an invalid config, and one equal to the server's", async () => {
    const root = await rootWith({
      loose: { config: 'port: 9001\nbind: 0.0.0.0\nexecutor: claude\n', token: 'loose-token-0123456789', mode: 0o644 },
      mine: { config: 'port: 9002\nbind: 0.0.0.0\nexecutor: claude\n', token: SERVER_TOKEN },
      broken: { config: 'port: 9003\nbind: 0.0.0.0\nexecutor: nope\n', token: 'broken-token-0123456789' },
      linked: { config: 'port: 9004\nbind: 0.0.0.0\nexecutor: claude\n' },
    });
    await symlink(join(root.agents, 'loose', 'token'), join(root.agents, 'linked', 'token'));
    const tokens = instanceTokens({ root, serverTokens: [SERVER_TOKEN] });
    for (const port of [9001, 9002, 9003, 9004]) expect(await tokens(`http://127.0.0.1:${port}`)).toBeUndefined();
  });

  it('reads the instances again after ttlMs, so a worker started later is found', async () => {
    const root = await rootWith({});
    let now = 0;
    const tokens = instanceTokens({ root, serverTokens: [], ttlMs: 1000, now: () => now });
    expect(await tokens('http://127.0.0.1:9001')).toBeUndefined();
    const dir = join(root.agents, 'late');
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, 'config.yaml'), 'port: 9001\nbind: 0.0.0.0\nexecutor: claude\n');
    await writeFile(join(dir, 'token'), 'late-token-0123456789\n', { mode: 0o600 });
    expect(await tokens('http://127.0.0.1:9001')).toBeUndefined();
    now = 1001;
    expect(await tokens('http://127.0.0.1:9001')).toBe('late-token-0123456789');
  });
});

describe('fetchWithTokens', () => {
  it('adds the bearer header for a worker with a token, and nothing for one without', async () => {
    const seen: Array<Record<string, string>> = [];
    const send = fetchWithTokens(
      async (url) => (url.startsWith('http://127.0.0.1:9001') ? 'a-token-0123456789' : undefined),
      async (_input, init) => {
        seen.push(init.headers as Record<string, string>);
        return new Response('{}');
      },
    );
    await send('http://127.0.0.1:9001/status', { headers: { accept: 'application/json' } });
    await send('http://127.0.0.1:9002/status', { headers: { accept: 'application/json' } });
    expect(seen).toEqual([
      { accept: 'application/json', authorization: 'Bearer a-token-0123456789' },
      { accept: 'application/json' },
    ]);
  });
});
