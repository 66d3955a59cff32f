import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { AgencyRoot } from '../../config/agency-root.ts';
import { loadWorkerConfig } from '../../config/worker-config.ts';
import type { FetchFunction } from '../../fleet/worker-client.ts';
import { wildcardNames } from '../../http/hosts.ts';
import { readSecretFile } from '../../http/token-file.ts';

/** The bearer token to send a worker at `url`, if the server has one for it. */
export type WorkerTokens = (url: string) => Promise<string | undefined>;

/** Options for {@link instanceTokens}. */
export type InstanceTokensOptions = {
  root: AgencyRoot;
  /** The server's own tokens: never sent to a worker, even when a worker's file holds the same value. */
  serverTokens: readonly string[];
  /** How long the instances read are trusted before they are read again. @default 2000 */
  ttlMs?: number;
  now?: () => number;
};

// `hosts`: the names the worker is reached at, its bind address, or for 0.0.0.0 and :: every address of this host.
type Instance = { port: number; hosts: string[]; token: string };

const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost']);

/**
 * The tokens of the workers of this data root: a worker bound beyond loopback keeps its token in
 * `<root>/agents/<name>/token` (0600). The token goes only to where that worker's own config says it listens: its
 * `port` on its `bind` address, or for `0.0.0.0` and `::` on an address of this host (loopback included), so a
 * process on another port or address never sees it. `AGENCY_TOKEN` and
 * the server's own tokens are never sent. A file that is missing, not a regular file, or readable by others is
 * skipped: that worker answers 401 and shows as not a component.
 */
export function instanceTokens({ root, serverTokens, ttlMs = 2000, now = Date.now }: InstanceTokensOptions) {
  let cached: { at: number; instances: Promise<Instance[]> } | undefined;
  const instances = () => {
    if (!cached || now() - cached.at > ttlMs) cached = { at: now(), instances: readInstances(root, serverTokens) };
    return cached.instances;
  };
  const tokens: WorkerTokens = async (url) => {
    const target = addressOf(url);
    if (!target) return undefined;
    const found = (await instances()).find(
      (instance) => instance.port === target.port && instance.hosts.includes(target.host),
    );
    return found?.token;
  };
  return tokens;
}

/** A fetch that adds the worker's bearer token, looked up for each request's URL, when there is one. */
export function fetchWithTokens(tokens: WorkerTokens, base?: FetchFunction): FetchFunction {
  const send: FetchFunction = base ?? ((input, init) => globalThis.fetch(input, init));
  return async (input, init) => {
    const token = await tokens(input);
    if (token === undefined) return send(input, init);
    const headers = { ...(init.headers as Record<string, string> | undefined), authorization: `Bearer ${token}` };
    return send(input, { ...init, headers });
  };
}

async function readInstances(root: AgencyRoot, serverTokens: readonly string[]): Promise<Instance[]> {
  const names = await readdir(root.agents).catch(() => [] as string[]);
  const found = await Promise.all(
    names.map(async (name): Promise<Instance | undefined> => {
      try {
        const config = await loadWorkerConfig(join(root.agents, name, 'config.yaml'));
        if (LOOPBACK.has(config.bind)) return undefined;
        const token = (await readSecretFile(join(config.instanceDir, 'token')))?.toString('utf8').trim();
        if (!token || serverTokens.includes(token)) return undefined;
        const hosts = [config.bind, ...wildcardNames(config.bind)].map((host) => host.replace(/^\[|\]$/g, ''));
        return { port: config.port, hosts, token };
      } catch {
        // An invalid config or a loose token file: `agency validate` and the worker itself say what is wrong.
        return undefined;
      }
    }),
  );
  return found.filter((instance): instance is Instance => instance !== undefined);
}

function addressOf(url: string): { host: string; port: number } | undefined {
  try {
    const parsed = new URL(url);
    const port = parsed.port ? Number(parsed.port) : parsed.protocol === 'https:' ? 443 : 80;
    return { host: parsed.hostname.replace(/^\[|\]$/g, ''), port };
  } catch {
    return undefined;
  }
}
