import { describe, expect, it } from 'vitest';
import { createFleetDispatch } from './fleet-dispatch.ts';

const local = { candidates: async () => [], clientFor: () => ({}) as never };

describe('createFleetDispatch', () => {
  it('dispatches on this machine without AGENCY_DATABASE_URL: no worker found, no database touched', async () => {
    const dispatch = createFleetDispatch(local, {});
    await expect(dispatch.dispatch({ prompt: 'hi' })).rejects.toMatchObject({ code: 'no_worker' });
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
});
