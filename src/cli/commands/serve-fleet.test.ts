import { describe, expect, it } from 'vitest';
import { describeFleet, serveFleet } from './serve-fleet.ts';

describe('serveFleet', () => {
  it('scans 9000-9199 by default, takes the flags over the environment, and scans nothing for "none"', () => {
    expect(serveFleet({}, {})).toEqual({ ports: { from: 9000, to: 9199 }, urls: [] });
    expect(serveFleet({}, { AGENCY_FLEET_PORTS: '9300-9310', AGENCY_FLEET_URLS: 'http://a:1, http://b:2' })).toEqual({
      ports: { from: 9300, to: 9310 },
      urls: ['http://a:1', 'http://b:2'],
    });
    expect(serveFleet({ fleetPorts: '9400', fleetWorker: ['http://c:3'] }, { AGENCY_FLEET_PORTS: '1-2' })).toEqual({
      ports: { from: 9400, to: 9400 },
      urls: ['http://c:3'],
    });
    expect(serveFleet({ fleetPorts: 'none' }, {})).toEqual({ ports: null, urls: [] });
    expect(serveFleet({ fleet: false, fleetPorts: '9000' }, {})).toBeUndefined();
  });

  it('refuses a range that is not one, naming the flag or the variable', () => {
    for (const bad of ['9199-9000', '0-10', '9000-70000', 'abc', '9000-', '-1'])
      expect(() => serveFleet({ fleetPorts: bad }, {})).toThrow(/--fleet-ports: .* is not a port range/);
    expect(() => serveFleet({}, { AGENCY_FLEET_PORTS: 'lots' })).toThrow(/AGENCY_FLEET_PORTS: "lots"/);
  });

  it('says where it looks', () => {
    expect(describeFleet(undefined, {})).toBe('off (--no-fleet)');
    expect(describeFleet({ ports: { from: 9000, to: 9199 }, urls: ['http://h:9'] }, {})).toBe(
      'scanning 127.0.0.1:9000-9199, http://h:9',
    );
    expect(describeFleet({ ports: null, urls: [] }, {})).toBe('no ports scanned and no worker URL');
  });

  it('names the registry it reads with AGENCY_DATABASE_URL, never its credentials', () => {
    const env = { AGENCY_DATABASE_URL: 'postgres://agency:hunter2@db.example:6543/fleet' };
    expect(describeFleet({ ports: null, urls: [] }, env)).toBe(
      'registry at db.example:6543/fleet (AGENCY_DATABASE_URL)',
    );
    expect(describeFleet({ ports: { from: 9000, to: 9001 }, urls: [] }, env)).toBe(
      'registry at db.example:6543/fleet (AGENCY_DATABASE_URL), scanning 127.0.0.1:9000-9001',
    );
    expect(describeFleet(undefined, env)).toBe('off (--no-fleet)');
  });
});
