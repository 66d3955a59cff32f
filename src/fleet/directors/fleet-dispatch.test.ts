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

  it('goes to the queue with AGENCY_DATABASE_URL, and reports an unreachable database on use', async () => {
    const dispatch = createFleetDispatch(local, { AGENCY_DATABASE_URL: 'mysql://x@127.0.0.1/db' });
    await expect(dispatch.dispatch({ prompt: 'hi' })).rejects.toMatchObject({
      code: 'invalid_config',
      message: expect.stringContaining('AGENCY_DATABASE_URL: must be a postgres:// URL'),
    });
  });
});
