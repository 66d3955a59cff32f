import type { ClientRequest, IncomingMessage, RequestOptions } from 'node:http';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction, Socket } from 'node:net';
import { abortedError } from '../../core/clock.ts';
import { AgencyError } from '../../core/errors.ts';
import { displayUrl, networkFailedError } from './network-errors.ts';
import { parseIpStrict } from './network-ip.ts';
import type { PinnedAddress } from './network-resolve.ts';
import type { UrlTarget } from './network-url.ts';

/** One request to one pinned address. */
export type HopRequest = {
  target: UrlTarget;
  pinned: PinnedAddress;
  method: string;
  headers: Record<string, string>;
  body?: string | Uint8Array | undefined;
  maxBytes: number;
  signal: AbortSignal;
};

/** What one hop answered. `location` is set for a redirect, whose body is discarded unread. */
export type HopResponse = {
  status: number;
  headers: Record<string, string>;
  body: Uint8Array;
  remoteAddress: string;
  location?: string;
};

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/**
 * Sends one request to the pinned address and reads the response, enforcing `maxBytes`. The hostname stays in the
 * request (Host header, TLS SNI and certificate check) while the socket can only reach the pinned address: the
 * custom `lookup` answers with it and nothing else, and the connected peer is checked again.
 */
export async function sendHop(hop: HopRequest): Promise<HopResponse> {
  const { target, pinned, signal } = hop;
  if (signal.aborted) throw abortedError(signal);
  const options: RequestOptions = {
    host: target.literal === undefined ? target.hostname : pinned.address,
    port: target.port,
    path: `${target.url.pathname}${target.url.search}`,
    method: hop.method,
    headers: hop.headers,
    // A fresh agent per hop: no pooled socket from another pin, and no proxy taken from the environment.
    agent: false,
    lookup: pinnedLookup(target.hostname, pinned),
  };
  const send = target.url.protocol === 'https:' ? httpsRequest : httpRequest;
  let req: ClientRequest;
  try {
    req = send(options);
  } catch (cause) {
    throw new AgencyError('invalid_argument', `Request to ${displayUrl(target.url)} is malformed: ${String(cause)}`, {
      cause,
    });
  }
  return await exchange(req, hop);
}

function exchange(req: ClientRequest, hop: HopRequest): Promise<HopResponse> {
  const { target, pinned, signal } = hop;
  return new Promise<HopResponse>((resolve, reject) => {
    let remoteAddress = '';
    const finish = (outcome: { value: HopResponse } | { error: Error }) => {
      signal.removeEventListener('abort', onAbort);
      req.destroy();
      if ('value' in outcome) resolve(outcome.value);
      else reject(outcome.error);
    };
    const onAbort = () => finish({ error: abortedError(signal) });
    signal.addEventListener('abort', onAbort, { once: true });
    const checkPeer = (socket: Socket | null) => {
      remoteAddress = remoteAddress || socket?.remoteAddress || '';
      if (isPinnedPeer(remoteAddress, pinned)) return true;
      finish({ error: peerMismatch(target, pinned, remoteAddress) });
      return false;
    };
    req.on('socket', (socket) => socket.once('connect', () => checkPeer(socket)));
    req.on('error', (error) => {
      if (signal.aborted) return finish({ error: abortedError(signal) });
      const to = `${pinned.address} port ${target.port}`;
      finish({ error: networkFailedError(`${hop.method} ${displayUrl(target.url)} (connecting to ${to})`, error) });
    });
    req.on('response', (res) => {
      if (!checkPeer(res.socket)) return;
      readResponse(res, hop, remoteAddress).then(
        (value) => finish({ value }),
        (error: unknown) => finish({ error: signal.aborted ? abortedError(signal) : AgencyError.from(error) }),
      );
    });
    req.end(hop.body);
  });
}

async function readResponse(res: IncomingMessage, hop: HopRequest, remoteAddress: string): Promise<HopResponse> {
  const status = res.statusCode ?? 0;
  const headers = flattenHeaders(res);
  const location = headers['location'];
  if (REDIRECTS.has(status) && location !== undefined) {
    res.destroy();
    return { status, headers, body: new Uint8Array(), remoteAddress, location };
  }
  const declared = Number(headers['content-length']);
  if (Number.isFinite(declared) && declared > hop.maxBytes) throw tooLarge(hop, `declares ${declared} bytes`);
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of res as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > hop.maxBytes) throw tooLarge(hop, `sent more than ${hop.maxBytes} bytes`);
      chunks.push(chunk);
    }
  } catch (error) {
    if (AgencyError.isInstance(error)) throw error;
    throw networkFailedError(`${hop.method} ${displayUrl(hop.target.url)}: the response broke off`, error);
  }
  const body = new Uint8Array(Buffer.concat(chunks, size));
  return { status, headers, body, remoteAddress };
}

function tooLarge(hop: HopRequest, what: string): AgencyError {
  const url = displayUrl(hop.target.url);
  return new AgencyError(
    'network_response_too_large',
    `Network guard stopped reading ${url}: the response ${what}, over the limit of ${hop.maxBytes}. ` +
      'Raise policy.maxBytes if larger responses are intended.',
    { details: { url, maxBytes: hop.maxBytes } },
  );
}

function flattenHeaders(res: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(res.headers)) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return headers;
}

// Answers every lookup with the pinned address, so the socket cannot reach anything the policy did not check.
function pinnedLookup(hostname: string, pinned: PinnedAddress): LookupFunction {
  return (host, options, callback) => {
    if (host !== hostname) {
      callback(new Error(`pinned lookup for ${hostname} was asked for ${host}`), '', 0);
    } else if (options.all) {
      callback(null, [{ address: pinned.address, family: pinned.family }]);
    } else {
      callback(null, pinned.address, pinned.family);
    }
  };
}

function isPinnedPeer(remoteAddress: string, pinned: PinnedAddress): boolean {
  const peer = parseIpStrict(remoteAddress);
  return peer !== undefined && peer.family === pinned.family && peer.value === pinned.ip.value;
}

// Only reachable if something below the guard (a global agent, a patched net module) rerouted the socket.
function peerMismatch(target: UrlTarget, pinned: PinnedAddress, remoteAddress: string): AgencyError {
  const url = displayUrl(target.url);
  return new AgencyError(
    'network_blocked',
    `Network guard refused ${url}: the socket reached ${remoteAddress || 'an unknown peer'} instead of the checked ` +
      `address ${pinned.address}, so the connection was dropped. Remove whatever reroutes sockets in this process; ` +
      'policy.allow cannot fix this.',
    { details: { url, address: remoteAddress, pinned: pinned.address } },
  );
}
