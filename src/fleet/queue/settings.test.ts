import { describe, expect, it } from 'vitest';
import { databaseBanner, fleetSettingsFrom } from './settings.ts';

const url = 'postgres://agency@127.0.0.1:5432/postgres';

describe('fleetSettingsFrom', () => {
  it('is off without AGENCY_DATABASE_URL, and has defaults with it', () => {
    expect(fleetSettingsFrom({})).toBeUndefined();
    expect(fleetSettingsFrom({ AGENCY_DATABASE_URL: '' })).toBeUndefined();
    expect(fleetSettingsFrom({ AGENCY_DATABASE_URL: url })).toEqual({
      databaseUrl: url,
      databaseSource: 'AGENCY_DATABASE_URL',
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
    ).toEqual({
      databaseUrl: url,
      databaseSource: 'AGENCY_DATABASE_URL',
      executor: 'claude',
      rerunOnLoss: true,
      heartbeatSeconds: 3,
    });
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

  it("takes a config's database: when the variable is not set, and the variable over it when it is", () => {
    const other = 'postgres://agency@10.0.0.9:6543/fleet';
    const config = { database: other, file: '/srv/agency/agents/w1/config.yaml' };
    const fromConfig = fleetSettingsFrom({}, config);
    expect(fromConfig).toMatchObject({ databaseUrl: other, databaseSource: `${config.file}: database` });
    expect(fromConfig?.overridesConfig).toBeUndefined();
    expect(databaseBanner(fromConfig!)).toBe(`10.0.0.9:6543/fleet (${config.file}: database)`);
    const fromEnv = fleetSettingsFrom({ AGENCY_DATABASE_URL: url }, config);
    expect(fromEnv).toMatchObject({ databaseUrl: url, databaseSource: 'AGENCY_DATABASE_URL', overridesConfig: true });
    expect(databaseBanner(fromEnv!)).toBe("127.0.0.1:5432/postgres (AGENCY_DATABASE_URL, over the config's database:)");
    expect(fleetSettingsFrom({}, { file: config.file })).toBeUndefined();
  });

  it('names the config file and key, not the variable, when the URL came from the config', () => {
    const file = '/srv/agency/agents/w1/config.yaml';
    expect(() => fleetSettingsFrom({}, { database: 'mysql://a@h/db', file })).toThrow(
      expect.objectContaining({
        code: 'invalid_config',
        message: `${file}: database: must be a postgres:// URL (postgres://user:password@host:5432/database)`,
        details: { field: 'database' },
      }),
    );
    expect(() => fleetSettingsFrom({ AGENCY_FLEET_EXECUTOR: 'bash' }, { database: url, file })).toThrow(
      /AGENCY_FLEET_EXECUTOR: must be one of/,
    );
  });
});
