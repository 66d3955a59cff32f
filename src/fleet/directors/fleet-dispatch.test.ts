import { describe, expect, it } from 'vitest';
import { createFleetDispatch } from './fleet-dispatch.ts';

const local = { candidates: async () => [], clientFor: () => ({}) as never };

describe('createFleetDispatch', () => {
  it('dispatches on this machine without AGENCY_DATABASE_URL: no worker found, no database touched', async () => {
    const dispatch = createFleetDispatch(local, {});
    await expect(dispatch.dispatch({ prompt: 'hi' })).rejects.toMatchObject({ code: 'no_worker' });
  });

  it('refuses a task that requires labels on this machine, where workers have none to match', async () => {
    const director = createFleetDispatch(local, {}, { file: '/srv/d/config.yaml', labels: ['gpu'] });
    await expect(director.dispatch({ prompt: 'hi' })).rejects.toMatchObject({
      code: 'invalid_config',
      message: expect.stringContaining('requires the labels gpu, which only fleet mode matches; set database:'),
    });
    const entry = createFleetDispatch(local, {});
    await expect(entry.dispatch({ prompt: 'hi', labels: ['linux'] })).rejects.toThrow(/requires the labels linux/);
  });

  it('refuses a malformed fleet variable at once, naming it', () => {
    expect(() =>
      createFleetDispatch(local, { AGENCY_DATABASE_URL: 'postgres://x@127.0.0.1/db', AGENCY_FLEET_EXECUTOR: 'x' }),
    ).toThrow(/AGENCY_FLEET_EXECUTOR: must be one of/);
  });

  it('refuses a URL that is not postgres:// at once, and reports an unreachable database on use', async () => {
    expect(() => createFleetDispatch(local, { AGENCY_DATABASE_URL: 'mysql://x@127.0.0.1/db' })).toThrow(
      /AGENCY_DATABASE_URL: must be a postgres:\/\/ URL/,
    );
    const dispatch = createFleetDispatch(local, { AGENCY_DATABASE_URL: 'postgres://x:s3cret@127.0.0.1:9/db' });
    const failure = await dispatch.dispatch({ prompt: 'hi' }).then(
      () => undefined,
      (error: unknown) => error as Error,
    );
    expect(failure?.message).toContain('127.0.0.1:9');
    expect(failure?.message).not.toContain('s3cret');
  });

  it("takes a config's database: without the variable, naming the file and key; the variable wins over it", async () => {
    const file = '/srv/agency/directors/nightly/config.yaml';
    const key = { database: 'postgres://x:s3cret@127.0.0.1:9/fromconfig', file, labels: ['gpu'] };
    const fromConfig = await createFleetDispatch(local, {}, key)
      .dispatch({ prompt: 'hi' })
      .catch((error: unknown) => error as Error);
    expect(fromConfig).toMatchObject({
      code: 'network_failed',
      message: expect.stringContaining(`127.0.0.1:9/fromconfig (${file}: database) cannot be reached`),
    });
    expect((fromConfig as Error).message).not.toContain('s3cret');
    const fromEnv = await createFleetDispatch(local, { AGENCY_DATABASE_URL: 'postgres://x@127.0.0.1:9/fromenv' }, key)
      .dispatch({ prompt: 'hi' })
      .catch((error: unknown) => error as Error);
    expect((fromEnv as Error).message).toContain('127.0.0.1:9/fromenv (AGENCY_DATABASE_URL) cannot be reached');
    expect(() => createFleetDispatch(local, {}, { database: 'http://db/x', file })).toThrow(
      `${file}: database: must be a postgres:// URL`,
    );
  });
});
