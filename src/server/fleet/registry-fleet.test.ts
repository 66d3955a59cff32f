import { describe, expect, it } from 'vitest';
import { freePortBlock } from '../../../test/support/free-ports.ts';
import { useFleetDatabase } from '../../../test/support/fleet-database.ts';
import { markStopped, registerWorker } from '../../fleet/queue/registry.ts';
import { disabledFleet } from './fleet.ts';
import { createRegistryFleet, createServerFleet } from './registry-fleet.ts';

const database = useFleetDatabase();

describe('the registry in the server fleet', () => {
  it('reads the registry, and tells subscribers only when a worker changes, not when time passes', async () => {
    const fleet = createRegistryFleet(disabledFleet(), { databaseUrl: database.pg.url }, { pollMs: 60_000 });
    const changes: number[] = [];
    fleet.subscribe(() => changes.push(changes.length));
    try {
      expect(fleet.view().registry).toMatchObject({ workers: [], error: null, checked_at: null });
      await registerWorker(database.db.pool, {
        name: 'reg-a',
        url: 'http://10.0.0.5:9000',
        executors: ['builtin'],
        heartbeatSeconds: 5,
      });
      const first = await fleet.read();
      expect(first.registry!.workers).toEqual([
        expect.objectContaining({ name: 'reg-a', state: 'idle', health: 'healthy', url: 'http://10.0.0.5:9000' }),
      ]);
      expect(first.registry!.checked_at).toMatch(/Z$/);
      expect(changes).toHaveLength(1);
      await fleet.read();
      expect(changes).toHaveLength(1);
      await markStopped(database.db.pool, 'reg-a');
      expect((await fleet.read()).registry!.workers[0]).toMatchObject({ state: 'stopped', health: 'stopped' });
      expect(changes).toHaveLength(2);
      expect(fleet.view().registry!.workers[0]!.health).toBe('stopped');
    } finally {
      fleet.close();
    }
  });

  it('rejects a read of a database it cannot reach, naming the host and not the password, and keeps the last read', async () => {
    const { from: port } = await freePortBlock(1);
    const fleet = createRegistryFleet(disabledFleet(), {
      databaseUrl: `postgres://u:pw-secret@127.0.0.1:${port}/fleet`,
    });
    try {
      const error = (await fleet.read().then(
        () => ({ code: 'none', message: 'read the registry' }),
        (caught: unknown) => caught,
      )) as { code: string; message: string };
      expect(error).toMatchObject({ code: 'network_failed' });
      expect(error.message).toContain(
        `the fleet database at 127.0.0.1:${port}/fleet (AGENCY_DATABASE_URL) cannot be reached`,
      );
      expect(error.message).not.toContain('pw-secret');
      const { registry } = fleet.view();
      expect(registry).toMatchObject({ database: `127.0.0.1:${port}/fleet`, workers: [] });
      expect(registry!.error).toContain('cannot be reached');
      expect(JSON.stringify(registry)).not.toContain('pw-secret');
    } finally {
      fleet.close();
    }
  });

  it('is the discovery alone without AGENCY_DATABASE_URL, and refuses a URL that is not postgres://', async () => {
    const plain = createServerFleet({ ports: null }, {});
    try {
      expect(plain.view()).not.toHaveProperty('registry');
    } finally {
      plain.close();
    }
    expect(() => createServerFleet({ ports: null }, { AGENCY_DATABASE_URL: 'redis://h:6379' })).toThrow(
      expect.objectContaining({ code: 'invalid_config', message: expect.stringContaining('AGENCY_DATABASE_URL') }),
    );
    expect(() => createRegistryFleet(disabledFleet(), { databaseUrl: 'file:///etc/passwd' })).toThrow(
      /AGENCY_DATABASE_URL: must be a postgres:\/\/ URL/,
    );
  });
});
