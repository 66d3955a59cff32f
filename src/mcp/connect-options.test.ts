import { describe, expect, it } from 'vitest';
import { type ConnectMcpOptions, resolveConnectOptions } from './connect-options.ts';

const stdio = { type: 'stdio' as const, command: 'node' };

describe('resolveConnectOptions', () => {
  it('fills in the defaults', () => {
    expect(resolveConnectOptions({ name: 'fs', transport: stdio })).toMatchObject({
      effects: 'exec',
      timeoutMs: 60_000,
      connectTimeoutMs: 30_000,
      overrides: {},
      reconnect: { maxAttempts: 5, initialDelayMs: 500, maxDelayMs: 30_000 },
      clientInfo: { name: 'agency', version: expect.stringMatching(/^\d+\.\d+\.\d+/) },
    });
    expect(resolveConnectOptions({ name: 'fs', transport: stdio, reconnect: false }).reconnect).toBe(false);
  });

  it.each<[Partial<ConnectMcpOptions>, RegExp]>([
    [{ name: 'a__b' }, /not usable as a tool-name prefix/],
    [{ transport: { type: 'stdio', command: ' ' } }, /"transport.command" must be the executable/],
    [{ transport: { type: 'http', url: 'ftp://x' } }, /"transport.url" must be an http or https URL/],
    [{ transport: { type: 'ws' } as never }, /"transport.type" must be "stdio" or "http"/],
    [{ effects: 'delete' as never }, /"effects" must be one of read, write, network, exec/],
    [{ timeoutMs: 0 }, /"timeoutMs" must be a positive number/],
    [{ timeoutMs: 2 ** 31 }, /"timeoutMs" must be a positive number of milliseconds, at most/],
    [{ overrides: { echo: { effects: 'x' as never } } }, /"overrides.echo.effects"/],
    [{ reconnect: { maxAttempts: -1 } }, /"reconnect.maxAttempts" must be an integer >= 0/],
  ])('refuses %j', (bad, message) => {
    const options: ConnectMcpOptions = { name: 'fs', transport: stdio, ...bad };
    expect(() => resolveConnectOptions(options)).toThrow(message);
  });
});
