import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadDirectorConfigBase } from './director-config.ts';

async function load(text: string) {
  const file = join(await mkdtemp(join(tmpdir(), 'agency-director-')), 'config.yaml');
  await writeFile(file, text);
  return loadDirectorConfigBase(file).catch((error: unknown) => (error as Error).message.replaceAll(`${file}:`, ''));
}

describe('a director config', () => {
  it('has its base fields checked, defaults filled in, and the fields of its kind let through', async () => {
    expect(await load('type: github\nname: myagent\nport: 9100\nrepo: owner/repo\n')).toEqual({
      type: 'github',
      name: 'myagent',
      port: 9100,
      bind: '127.0.0.1',
      log_level: 'info',
      repo: 'owner/repo',
      labels: [],
      discovery: { method: 'port_scan', port_range: [9000, 9199], refresh_interval: 5_000, static: [] },
    });
    expect(
      await load(
        'type: scheduler\nname: s1\ndiscovery:\n  method: static\n  refresh_interval: 1s\n  static: [http://10.0.0.5:9000]\n',
      ),
    ).toMatchObject({
      discovery: { method: 'static', refresh_interval: 1_000, static: ['http://10.0.0.5:9000'] },
    });
  });

  it('names the line and field of a bad base field', async () => {
    expect(await load('type: robot\nname: s1\ndiscovery:\n  port_range: [9199, 9000]\n  metod: mdns\n')).toBe(
      [
        '1:1: type: must be one of cli, scheduler, github, manager, web',
        '4:3: discovery.port_range: the first port must not be above the last',
        '5:3: discovery.metod: unknown field (did you mean "method"?); remove it, or see docs/fleet.md for the fields',
      ].join('\n'),
    );
  });
});
