import { connect } from 'node:net';
import { AgencyError } from '../../core/errors.ts';

/** A range of ports, both ends included. */
export type PortRange = { from: number; to: number };

/** Where components listen by default (seed 004, "Discovery Protocol"). */
export const DEFAULT_PORTS: PortRange = { from: 9000, to: 9199 };

/** Whether something accepts a TCP connection on `host:port` within `timeoutMs`. */
export type Probe = (host: string, port: number, timeoutMs: number) => Promise<boolean>;

/**
 * Parses `9000-9199` or `9001`.
 *
 * @throws AgencyError `invalid_argument` naming the value and the form it should have.
 */
export function parsePortRange(text: string, where = 'ports'): PortRange {
  const match = /^\s*(\d{1,5})\s*(?:-\s*(\d{1,5})\s*)?$/.exec(text);
  const from = Number(match?.[1]);
  const to = Number(match?.[2] ?? match?.[1]);
  if (!match || from < 1 || to > 65_535 || from > to) {
    throw new AgencyError(
      'invalid_argument',
      `${where}: "${text}" is not a port range; write FROM-TO (e.g. 9000-9199) or one port, within 1–65535`,
    );
  }
  return { from, to };
}

/** A TCP connect to `host:port`: true once connected, false on refusal, error or timeout. */
export const tcpProbe: Probe = (host, port, timeoutMs) =>
  new Promise((resolve) => {
    const socket = connect({ host, port });
    const done = (open: boolean) => {
      socket.destroy();
      resolve(open);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });

/**
 * The ports of `ports` on `host` that accept a connection, in order. At most `concurrency` probes run at once, each
 * given `connectTimeoutMs`: on loopback a closed port refuses at once, so a scan of 200 ports takes milliseconds.
 */
export async function scanPorts({
  host,
  ports,
  probe = tcpProbe,
  concurrency = 32,
  connectTimeoutMs = 250,
}: {
  host: string;
  ports: PortRange;
  probe?: Probe;
  concurrency?: number;
  connectTimeoutMs?: number;
}): Promise<number[]> {
  const open: number[] = [];
  let next = ports.from;
  const lane = async () => {
    while (next <= ports.to) {
      const port = next++;
      if (await probe(host, port, connectTimeoutMs)) open.push(port);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, ports.to - ports.from + 1)) }, lane));
  return open.sort((a, b) => a - b);
}
