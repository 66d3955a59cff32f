import { type AddressInfo, createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { findComponent, newComponent } from './component.ts';
import { parsePortRange, scanPorts, tcpProbe } from './port-scan.ts';

describe('port scan', () => {
  it('parses a range or one port, and names a bad one', () => {
    expect(parsePortRange('9000-9199')).toEqual({ from: 9000, to: 9199 });
    expect(parsePortRange(' 9001 ')).toEqual({ from: 9001, to: 9001 });
    for (const bad of ['9199-9000', '0-10', '9000-70000', 'nine', '9000-']) {
      expect(() => parsePortRange(bad, '--ports')).toThrow(`--ports: "${bad}" is not a port range`);
    }
  });

  it('finds the open ports of a range with a real TCP connect, and no others', async () => {
    const server = createServer().listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    const { port } = server.address() as AddressInfo;
    try {
      const open = await scanPorts({ host: '127.0.0.1', ports: { from: port - 3, to: port + 3 } });
      expect(open).toContain(port);
      expect(await tcpProbe('127.0.0.1', port, 250)).toBe(true);
    } finally {
      server.close();
    }
    expect(await tcpProbe('127.0.0.1', port, 250)).toBe(false);
  });

  it('runs at most `concurrency` probes at once, and probes each port once', async () => {
    let running = 0;
    let most = 0;
    const probed: number[] = [];
    const probe = async (_host: string, port: number) => {
      running++;
      most = Math.max(most, running);
      probed.push(port);
      await new Promise((resolve) => setImmediate(resolve));
      running--;
      return port % 50 === 0;
    };
    const open = await scanPorts({ host: '127.0.0.1', ports: { from: 9000, to: 9199 }, probe, concurrency: 8 });
    expect(open).toEqual([9000, 9050, 9100, 9150]);
    expect(most).toBe(8);
    expect(probed.sort()).toEqual(Array.from({ length: 200 }, (_, index) => 9000 + index));
  });
});

describe('finding a component', () => {
  const components = [
    { ...newComponent('http://127.0.0.1:9000', 'scan', 0) },
    {
      ...newComponent('http://127.0.0.1:9001', 'scan', 0),
      status: {
        type: 'agent' as const,
        interfaces: ['statusable' as const, 'taskable' as const],
        name: 'builder',
        version: '1',
        state: 'idle' as const,
        uptime_seconds: 0,
        current_task: null,
        config: {},
        log: [],
      },
    },
  ];

  it('by URL, name or port', () => {
    expect(findComponent(components, 'http://127.0.0.1:9001/')?.url).toBe('http://127.0.0.1:9001');
    expect(findComponent(components, 'builder')?.url).toBe('http://127.0.0.1:9001');
    expect(findComponent(components, '9000')?.url).toBe('http://127.0.0.1:9000');
    expect(findComponent(components, 'nobody')).toBeUndefined();
  });
});
