import { mkdir, mkdtemp, readdir, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { placeSession } from './session-place.ts';
import { SHARED_SESSIONS_ENV, sharedSessionDir, sharedSessionsDir } from './shared-sessions.ts';

let base: string;
beforeEach(async () => {
  base = await mkdtemp(join(tmpdir(), 'agency-shared-sessions-'));
});
afterEach(() => rm(base, { recursive: true, force: true }));

const SESSION = '7c8fe395-dfda-4bb9-91a6-5a4b7bec5c43';
const check = (configured: string | undefined, env: NodeJS.ProcessEnv = {}) =>
  sharedSessionsDir(configured, { env, configFile: '/srv/agency/agents/w1/config.yaml' });

describe('the shared sessions setting', () => {
  it('is unset by default, read from the config, and overridden by the environment', async () => {
    const shared = join(base, 'shared');
    const other = join(base, 'other');
    await Promise.all([mkdir(shared), mkdir(other)]);
    expect(await check(undefined)).toBeUndefined();
    expect(await check(shared)).toBe(shared);
    expect(await check(`${shared}/`)).toBe(shared);
    expect(await check(shared, { [SHARED_SESSIONS_ENV]: other })).toBe(other);
    expect(await check(undefined, { [SHARED_SESSIONS_ENV]: '' })).toBeUndefined();
  });

  it('refuses a path that is relative, missing, a file, a link or under a link, naming the key and the fix', async () => {
    const real = join(base, 'real');
    await mkdir(real);
    await writeFile(join(base, 'file'), 'x');
    await symlink(real, join(base, 'link'));
    const key = 'fleet.shared_sessions in /srv/agency/agents/w1/config.yaml';
    await expect(check('sessions')).rejects.toThrow(`${key}: "sessions" is not an absolute path`);
    await expect(check(join(base, 'missing'))).rejects.toThrow(
      `${key}: ${join(base, 'missing')} does not exist; mount the shared storage there`,
    );
    await expect(check(join(base, 'file'))).rejects.toThrow(`${key}: ${join(base, 'file')} is not a directory`);
    await expect(check(join(base, 'link'))).rejects.toThrow(
      `${key}: ${join(base, 'link')} is a symbolic link; name the directory it points to (${real})`,
    );
    await mkdir(join(real, 'inner'));
    await expect(check(join(base, 'link', 'inner'))).rejects.toThrow(
      `goes through a symbolic link (it is really ${join(real, 'inner')})`,
    );
    await expect(check(undefined, { [SHARED_SESSIONS_ENV]: join(base, 'file') })).rejects.toMatchObject({
      code: 'invalid_config',
      message: expect.stringMatching(/^AGENCY_FLEET_SHARED_SESSIONS: .* is not a directory/) as unknown,
      details: { field: SHARED_SESSIONS_ENV },
    });
  });
});

describe('a session directory on the share', () => {
  it('is made by session id, and refuses an id that is not a UUID', async () => {
    expect(await sharedSessionDir(base, SESSION)).toBe(join(base, SESSION));
    expect(await sharedSessionDir(base, SESSION)).toBe(join(base, SESSION));
    for (const id of ['../escape', `${SESSION}/../../x`, '..', '', SESSION.toUpperCase()])
      await expect(sharedSessionDir(base, id)).rejects.toMatchObject({
        code: 'invalid_argument',
        details: { field: 'session_id' },
      });
    expect(await readdir(base)).toEqual([SESSION]);
  });

  it('refuses a link planted in its place, and neither follows nor removes what it points to', async () => {
    const outside = join(base, 'outside');
    const shared = join(base, 'shared');
    await Promise.all([mkdir(outside), mkdir(shared)]);
    await writeFile(join(outside, 'keep.txt'), 'kept');
    await symlink(outside, join(shared, SESSION));
    await expect(sharedSessionDir(shared, SESSION)).rejects.toThrow(
      `${join(shared, SESSION)} on the shared sessions storage is not a directory (a link or a file was put there)`,
    );
    expect(await readdir(outside)).toEqual(['keep.txt']);
  });

  it('resumes a lost builtin run, empties the session of a task run again, and keeps one that is not', async () => {
    const turn = join(base, SESSION, 'turn-1', 'progress');
    await mkdir(turn, { recursive: true });
    const frame = JSON.stringify({
      version: 'agent.events.v1',
      id: 'evt_01J00000000000000000000001',
      seq: 1,
      ts: '2026-11-25T00:00:00.000Z',
      type: 'run.started',
    });
    await writeFile(join(turn, 'events.ndjson'), `${frame}\n`);
    const task = { sessionId: SESSION, executor: 'builtin', lost: true, rerun: false, epoch: 2 };
    const sessionDir = join(base, SESSION);
    expect(await placeSession(base, task)).toEqual({ sessionDir, retake: { epoch: 2 } });
    expect(await placeSession(base, { ...task, lost: false })).toEqual({ sessionDir });
    expect(await placeSession(base, { ...task, executor: 'claude' })).toEqual({ sessionDir });
    expect(await readdir(sessionDir)).toEqual(['turn-1']);
    expect(await placeSession(base, { ...task, executor: 'claude', rerun: true })).toEqual({ sessionDir });
    expect(await readdir(sessionDir)).toEqual([]);
  });
});
