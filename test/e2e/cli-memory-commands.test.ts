// `agency memory ls|search|rm` on a store, run as the real command.
import { execFile } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openPostgresMemoryStore } from '../../src/memory/stores/postgres/postgres-memory-store.ts';
import { openSqliteMemoryStore } from '../../src/memory/stores/sqlite/sqlite-memory-store.ts';
import { openRedisMemoryStore } from '../../src/memory/stores/redis/redis-memory-store.ts';
import { openZepMemoryStore } from '../../src/memory/stores/zep/zep-memory-store.ts';
import { startPostgres } from '../support/postgres.ts';
import { findRedisServer, startRedis } from '../support/redis.ts';
import { startZepFake } from '../support/zep-fake.ts';

const agency = new URL('../../bin/agency.js', import.meta.url).pathname;

function cli(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [agency, ...args],
      { env: { ...process.env, AGENCY_CONFIG: '', ...env } },
      (error, stdout, stderr) =>
        resolve({ code: error === null ? 0 : Number((error as { code?: number }).code), stdout, stderr }),
    );
  });
}

async function seededStore(): Promise<{ dir: string; file: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'agency-memory-cli-'));
  const file = join(dir, 'memory.db');
  let time = Date.UTC(2025, 0, 1);
  const store = openSqliteMemoryStore({ path: file, now: () => (time += 1000) });
  await store.put({ kind: 'user', id: 'u1' }, { id: 'm1', kind: 'preference', key: 'tone', text: 'Short answers.' });
  await store.put(
    { kind: 'agent', id: 'agency' },
    { id: 'm2', kind: 'episode', text: 'Deployed the docs site.', tags: ['learnings'] },
  );
  await store.put(
    { kind: 'agent', id: 'agency' },
    { id: 'm3', kind: 'fact', text: "'; DROP TABLE memory_entries; --" },
  );
  store.close();
  return { dir, file };
}

describe('agency memory on PostgreSQL', () => {
  it('lists, searches and removes entries of a postgres:// store', async () => {
    const server = await startPostgres();
    try {
      const store = await openPostgresMemoryStore({ connectionString: server.url });
      await store.put({ kind: 'user', id: 'u1' }, { id: 'p1', kind: 'fact', text: 'Prefers tea over coffee.' });
      await store.put({ kind: 'org', id: 'acme' }, { id: 'p2', kind: 'constraint', text: 'Cite sources.' });
      await store.close();
      const listed = await cli(['memory', 'ls', '--store', server.url, '--json']);
      expect((JSON.parse(listed.stdout) as Array<{ id: string }>).map((e) => e.id).sort()).toEqual(['p1', 'p2']);
      const found = await cli(['memory', 'search', 'coffee', '--store', server.url, '--json']);
      expect((JSON.parse(found.stdout) as Array<{ id: string }>).map((e) => e.id)).toEqual(['p1']);
      expect((await cli(['memory', 'rm', 'org:acme', 'p2', '--store', server.url])).code).toBe(0);
      expect((await cli(['memory', 'ls', '--store', server.url, '--scope', 'org:acme'])).stdout).toBe(
        'No entries in 1 scope(s).\n',
      );
    } finally {
      await server.stop();
    }
  }, 120_000);
});

describe('agency memory on Zep (a local fake of the Zep API)', () => {
  it('lists, searches and removes entries of a zep+http:// store, the key from ZEP_API_KEY', async () => {
    const fake = await startZepFake();
    try {
      const store = await openZepMemoryStore({ apiKey: fake.apiKey, baseUrl: fake.baseUrl, graphPrefix: 'cli' });
      await store.put({ kind: 'user', id: 'u1' }, { id: 'z1', kind: 'fact', text: 'Prefers tea over coffee.' });
      await store.put({ kind: 'org', id: 'acme' }, { id: 'z2', kind: 'constraint', text: 'Cite sources.' });
      const url = `${fake.baseUrl.replace('http://', 'zep+http://')}?prefix=cli`;
      const env = { ZEP_API_KEY: fake.apiKey };
      const listed = await cli(['memory', 'ls', '--store', url, '--json'], env);
      expect((JSON.parse(listed.stdout) as Array<{ id: string }>).map((e) => e.id).sort()).toEqual(['z1', 'z2']);
      const found = await cli(['memory', 'search', 'coffee', '--store', url, '--json'], env);
      expect((JSON.parse(found.stdout) as Array<{ id: string }>).map((e) => e.id)).toEqual(['z1']);
      expect((await cli(['memory', 'rm', 'org:acme', 'z2', '--store', url], env)).code).toBe(0);
      expect((await cli(['memory', 'ls', '--store', url, '--scope', 'org:acme'], env)).stdout).toBe(
        'No entries in 1 scope(s).\n',
      );
      const noKey = await cli(['memory', 'ls', '--store', url], { ZEP_API_KEY: '' });
      expect(noKey.code).not.toBe(0);
      expect(noKey.stderr).toContain('set ZEP_API_KEY');
      const wrongKey = await cli(['memory', 'ls', '--store', url], { ZEP_API_KEY: 'zep_wrong_key_0123456789abcdef' });
      expect(wrongKey.stderr).toContain('refused the API key (401)');
      expect(wrongKey.stderr).not.toContain('zep_wrong_key');
      expect(fake.violations).toEqual([]);
    } finally {
      await fake.close();
    }
  }, 60_000);
});

describe.skipIf('missing' in findRedisServer())('agency memory on Redis', () => {
  it('lists, searches and removes entries of a redis:// store', async () => {
    const server = await startRedis({ password: 'p4ss' });
    try {
      const store = await openRedisMemoryStore({ url: server.url });
      await store.put({ kind: 'user', id: 'u1' }, { id: 'r1', kind: 'fact', text: 'Prefers tea over coffee.' });
      await store.put({ kind: 'org', id: 'acme' }, { id: 'r2', kind: 'constraint', text: 'Cite sources.' });
      await store.close();
      const listed = await cli(['memory', 'ls', '--store', server.url, '--json']);
      expect((JSON.parse(listed.stdout) as Array<{ id: string }>).map((e) => e.id).sort()).toEqual(['r1', 'r2']);
      const found = await cli(['memory', 'search', 'coffee', '--store', server.url, '--json']);
      expect((JSON.parse(found.stdout) as Array<{ id: string }>).map((e) => e.id)).toEqual(['r1']);
      expect((await cli(['memory', 'rm', 'org:acme', 'r2', '--store', server.url])).code).toBe(0);
      expect((await cli(['memory', 'ls', '--store', server.url, '--scope', 'org:acme'])).stdout).toBe(
        'No entries in 1 scope(s).\n',
      );
      const wrong = await cli(['memory', 'ls', '--store', server.url.replace('p4ss', 'wrong')]);
      expect(wrong.code).toBe(1);
      expect(wrong.stderr).toContain('Redis memory store at redis://***@127.0.0.1:');
      expect(wrong.stderr).not.toContain('wrong');
    } finally {
      await server.stop();
    }
  }, 60_000);
});

describe('agency memory', () => {
  it('ls lists every scope newest first, and filters by scope, kind and tag', async () => {
    const { file } = await seededStore();
    const all = await cli(['memory', 'ls', '--store', `sqlite:${file}`, '--json']);
    expect(all.code).toBe(0);
    expect((JSON.parse(all.stdout) as Array<{ id: string }>).map((e) => e.id)).toEqual(['m3', 'm2', 'm1']);
    const user = await cli(['memory', 'ls', '--store', `sqlite:${file}`, '--scope', 'user:u1']);
    expect(user.stdout).toMatch(/user:u1 {2}m1 {2}preference \[tone\] {2}"Short answers\."/);
    expect(user.stdout.trim().split('\n')).toHaveLength(1);
    const tagged = await cli(['memory', 'ls', '--store', `sqlite:${file}`, '--tag', 'learnings', '--json']);
    expect((JSON.parse(tagged.stdout) as Array<{ id: string }>).map((e) => e.id)).toEqual(['m2']);
  }, 30_000);

  it('search ranks by the text, and hostile text is only words', async () => {
    const { file } = await seededStore();
    const found = await cli(['memory', 'search', 'docs deployed', '--store', `sqlite:${file}`, '--json']);
    expect((JSON.parse(found.stdout) as Array<{ id: string }>).map((e) => e.id)).toEqual(['m2']);
    const hostile = await cli(['memory', 'search', "') OR 1=1; DROP TABLE x; --", '--store', `sqlite:${file}`]);
    expect(hostile.code).toBe(0);
    const none = await cli(['memory', 'search', 'nothing-matches-this', '--store', `sqlite:${file}`]);
    expect(none.stdout).toBe('No entries in 2 scope(s).\n');
  }, 30_000);

  it('rm deletes one entry and says so; a second rm exits 1', async () => {
    const { file } = await seededStore();
    expect(await cli(['memory', 'rm', 'user:u1', 'm1', '--store', `sqlite:${file}`])).toMatchObject({
      code: 0,
      stdout: 'Deleted m1 from user:u1.\n',
    });
    expect(await cli(['memory', 'rm', 'user:u1', 'm1', '--store', `sqlite:${file}`])).toMatchObject({ code: 1 });
    const left = await cli(['memory', 'ls', '--store', `sqlite:${file}`, '--json']);
    expect((JSON.parse(left.stdout) as Array<{ id: string }>).map((e) => e.id)).toEqual(['m3', 'm2']);
  }, 30_000);

  it('refuses bad stores and scopes with exit 2, naming the flag and never echoing a password', async () => {
    const { dir, file } = await seededStore();
    const zep = await cli(['memory', 'ls', '--store', 'zep://admin:s3cret@cache.example:6379']);
    expect(zep.code).toBe(2);
    expect(zep.stderr).toContain('--store: "zep://***@cache.example:6379" holds credentials;');
    expect(zep.stderr).toContain('the API key goes in ZEP_API_KEY');
    expect(zep.stderr).not.toContain('s3cret');
    const redisDown = await cli(['memory', 'ls', '--store', 'redis://admin:s3cret@127.0.0.1:9']);
    expect(redisDown.code).toBe(1);
    expect(redisDown.stderr).toContain('Redis memory store at redis://***@127.0.0.1:9');
    expect(redisDown.stderr).not.toContain('s3cret');
    const down = await cli(['memory', 'ls', '--store', 'postgres://admin:s3cret@127.0.0.1:9/agency']);
    expect(down.code).toBe(1);
    expect(down.stderr).toMatch(/memory_store_unavailable|cannot connect/);
    expect(down.stderr).not.toContain('s3cret');
    const none = await cli(['memory', 'ls']);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/No memory store: pass --store sqlite:<path>/);
    const scope = await cli(['memory', 'ls', '--store', `sqlite:${file}`, '--scope', 'planet:earth']);
    expect(scope.code).toBe(2);
    expect(scope.stderr).toMatch(/--scope: Memory scope "planet:earth"/);
    expect((await cli(['memory', 'ls', '--store', `sqlite:${file}`, '--limit', '0'])).code).not.toBe(0);
    const garbage = join(dir, 'garbage.db');
    await writeFile(garbage, 'not a database '.repeat(500));
    const bad = await cli(['memory', 'ls', '--store', `sqlite:${garbage}`]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain(garbage);
  }, 30_000);
});
