import { describe, expect, it } from 'vitest';
import { fleetSettingsFrom } from './settings.ts';

const url = 'postgres://agency@127.0.0.1:5432/postgres';

describe('fleetSettingsFrom', () => {
  it('is off without AGENCY_DATABASE_URL, and has defaults with it', () => {
    expect(fleetSettingsFrom({})).toBeUndefined();
    expect(fleetSettingsFrom({ AGENCY_DATABASE_URL: '' })).toBeUndefined();
    expect(fleetSettingsFrom({ AGENCY_DATABASE_URL: url })).toEqual({
      databaseUrl: url,
      executor: 'builtin',
      rerunOnLoss: false,
      heartbeatSeconds: 10,
    });
    expect(
      fleetSettingsFrom({
        AGENCY_DATABASE_URL: url,
        AGENCY_FLEET_EXECUTOR: 'claude',
        AGENCY_FLEET_RERUN_ON_LOSS: '1',
        AGENCY_FLEET_HEARTBEAT_SECONDS: '3',
      }),
    ).toEqual({ databaseUrl: url, executor: 'claude', rerunOnLoss: true, heartbeatSeconds: 3 });
  });

  it.each([
    ['AGENCY_FLEET_EXECUTOR', 'bash'],
    ['AGENCY_FLEET_EXECUTOR', '__proto__'],
    ['AGENCY_FLEET_RERUN_ON_LOSS', 'yes'],
    ['AGENCY_FLEET_HEARTBEAT_SECONDS', '0'],
    ['AGENCY_FLEET_HEARTBEAT_SECONDS', '1e3'],
    ['AGENCY_FLEET_HEARTBEAT_SECONDS', '-5'],
    ['AGENCY_FLEET_HEARTBEAT_SECONDS', '301'],
    ['AGENCY_FLEET_HEARTBEAT_SECONDS', ' 10'],
  ])('refuses %s=%j, naming the variable', (name, value) => {
    expect(() => fleetSettingsFrom({ AGENCY_DATABASE_URL: url, [name]: value })).toThrow(
      expect.objectContaining({ code: 'invalid_config', message: expect.stringContaining(`${name}: must be`) }),
    );
  });

  it.each(['mysql://a:b@h/db', 'not a url', 'http://127.0.0.1:5432/postgres', 'postgres'])(
    'refuses AGENCY_DATABASE_URL=%j, naming the variable and the form it takes',
    (value) => {
      expect(() => fleetSettingsFrom({ AGENCY_DATABASE_URL: value })).toThrow(
        expect.objectContaining({
          code: 'invalid_config',
          message: expect.stringContaining('AGENCY_DATABASE_URL: must be a postgres:// URL'),
        }),
      );
    },
  );
});
