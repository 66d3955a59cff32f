// The director host: `agency director <name>` for every kind of director (see `director.ts`).
import { mkdir } from 'node:fs/promises';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import type { AgencyRoot } from '../../../config/agency-root.ts';
import { type DirectorConfigBase, loadDirectorConfigBase } from '../../../config/director-config.ts';
import { readYamlConfig } from '../../../config/yaml-file.ts';
import { systemTimers, type Timers } from '../../../core/clock.ts';
import { AgencyError } from '../../../core/errors.ts';
import { defaultRedactor, type Redactor } from '../../../core/redact.ts';
import { createLogger, type Logger } from '../../../obs/logger.ts';
import { rollingFile } from '../../../obs/rolling-file.ts';
import { allowedHosts, wildcardNames } from '../../../http/hosts.ts';
import { apiToken } from '../../../http/token-file.ts';
import type { WorkerStatus } from '../../api/worker-schemas.ts';
import { createComponentApp } from '../../component-app.ts';
import { isTaskableAgent } from '../../discovery/component.ts';
import { createDiscovery, type Discovery } from '../../discovery/discovery.ts';
import { createWorkerClient, type WorkerClient } from '../../worker-client.ts';
import { createLifecycleLog, type LifecycleLog } from '../../worker/lifecycle-log.ts';
import { listen, shutDownServer } from '../../worker/start-worker.ts';
import type { Director, DirectorContext, DirectorKind } from '../director.ts';
import { loadDirectorKind } from '../kinds.ts';
import { databaseBanner, fleetSettingsFrom } from '../../queue/settings.ts';
import { createFleetDispatch } from '../fleet-dispatch.ts';
import { createWorkspaceLocks } from '../workspace-lock.ts';
import { agentsOf, taskRunningOn } from './director-agents.ts';
import { openDirectorHistory } from './director-history.ts';
import { directorRoutes } from './director-routes.ts';
import { openStateStore } from './state-store.ts';

/** Options of {@link startDirector}. */
export type StartDirectorOptions = {
  /** `directors/<name>/config.yaml`. */
  file: string;
  root: AgencyRoot;
  version: string;
  /** Replaces the config's port (0 picks a free one). */
  port?: number;
  /** The kind, instead of the one the config's `type` names (tests). */
  kind?: DirectorKind;
  env?: NodeJS.ProcessEnv;
  timers?: Timers;
  redactor?: Redactor;
  /** Checks every JSON answer against its schema. @default false */
  validateResponses?: boolean;
};

/** A running director. */
export type RunningDirector = {
  url: string;
  name: string;
  type: string;
  newToken: string | undefined;
  tokenFile: string | undefined;
  /** Resolves once the director stopped (a shutdown drained, or its run failed: then with the error). */
  closed: Promise<Error | undefined>;
  /** Shuts down: work in flight gets `drainMs`, then the director's signal aborts. */
  stop(drainMs?: number): Promise<Error | undefined>;
};

/**
 * Starts a director: reads its config (the kind's schema on the base; errors name file, line and field), opens
 * `state.json` (a malformed one stops it, naming the file) and `history/`, binds the port at once with state
 * `starting`, then runs the kind until a shutdown. Bound beyond loopback, every route needs a bearer token
 * (`AGENCY_TOKEN`, or `directors/<name>/token`, generated on the first start), as a worker's do.
 */
export async function startDirector(options: StartDirectorOptions): Promise<RunningDirector> {
  const { file, root } = options;
  const timers = options.timers ?? systemTimers;
  const redactor = options.redactor ?? defaultRedactor;
  const base = await loadDirectorConfigBase(file);
  const kind = options.kind ?? (await loadDirectorKind(base.type, file));
  const config = await readYamlConfig(file, kind.configSchema, 'Create it (docs/directors.md)');
  if (config.port === undefined && options.port === undefined)
    throw new AgencyError('invalid_config', `${file}: port: a director daemon needs one; add e.g. "port: 9101"`, {
      details: { file, field: 'port' },
    });
  const dir = dirname(file);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const logger = createLogger({
    level: config.log_level,
    destination: rollingFile(join(dir, 'director.log')),
    name: `agency-director:${config.name}`,
    component: `director:${config.name}`,
    redactor,
  });
  const lifecycle = createLifecycleLog({ logger, redactor, now: () => timers.now() });
  const token = isLoopback(config.bind) ? undefined : await apiToken(dir, options.env ?? process.env);
  if (token) redactor.register(token.token);
  // A worker's token (AGENCY_TOKEN) goes only to the workers the config names.
  const workerToken = (options.env ?? process.env).AGENCY_TOKEN || undefined;
  const parts = await directorParts({ kind, config, dir, root, timers, redactor, lifecycle, workerToken });
  return serve({ ...options, kind, config, logger, lifecycle, parts, token, timers });
}

type Parts = Awaited<ReturnType<typeof directorParts>>;

// What the kind's context is made of, and the context.
async function directorParts({
  kind,
  config,
  dir,
  root,
  timers,
  redactor,
  lifecycle,
  workerToken,
}: {
  kind: DirectorKind;
  config: DirectorConfigBase;
  dir: string;
  root: AgencyRoot;
  timers: Timers;
  redactor: Redactor;
  lifecycle: LifecycleLog;
  workerToken: string | undefined;
}) {
  const state = await openStateStore({
    file: join(dir, 'state.json'),
    type: config.type,
    name: config.name,
    schema: kind.stateSchema,
    initial: () => kind.initialState(config),
  });
  const history = await openDirectorHistory(join(dir, 'history'), (message) => lifecycle.warn(message));
  const named = new Set(config.discovery.static.map((url) => new URL(url).origin));
  const clientFor = (url: string): WorkerClient =>
    createWorkerClient(url, workerToken && named.has(new URL(url).origin) ? { token: workerToken } : {});
  const discovery = discoveryOf(config, timers, clientFor);
  const key = { database: config.database, file: join(dir, 'config.yaml'), labels: config.labels };
  // Tasks go to workers only: a taskable director (the manager) takes a task when it is named, never by routing.
  const candidates = async () => (await discovery.refresh()).filter(isTaskableAgent);
  const dispatch = createFleetDispatch({ candidates, clientFor, timers }, process.env, key);
  const fleet = fleetSettingsFrom(process.env, key);
  if (fleet) lifecycle.info(`queue mode: fleet database ${databaseBanner(fleet)}`);
  const locks = createWorkspaceLocks({
    dir: join(root.root, 'locks'),
    director: config.name,
    taskRunning: taskRunningOn(clientFor),
    now: () => timers.now(),
  });
  const stopping = new AbortController();
  const halt = new AbortController();
  const context: DirectorContext = {
    config,
    root,
    redactor,
    files: { config: join(dir, 'config.yaml'), dir },
    state,
    history,
    log: lifecycle,
    dispatch,
    locks,
    workers: () => discovery.components(),
    timers,
    stopping: stopping.signal,
    signal: halt.signal,
  };
  return { context, history, discovery, stopping, halt };
}

function discoveryOf(config: DirectorConfigBase, timers: Timers, clientFor: (url: string) => WorkerClient): Discovery {
  const {
    method,
    port_range: [from, to],
    refresh_interval: every,
    static: urls,
  } = config.discovery;
  return createDiscovery({
    ports: method === 'static' ? null : { from, to },
    urls,
    scanIntervalMs: every,
    idleIntervalMs: every,
    timers,
    clientFor,
  });
}

// Binds the port, serves the routes, runs the kind, and shuts down.
async function serve({
  kind,
  config,
  logger,
  lifecycle,
  parts,
  token,
  timers,
  ...options
}: StartDirectorOptions & {
  kind: DirectorKind;
  config: DirectorConfigBase;
  logger: Logger;
  lifecycle: LifecycleLog;
  parts: Parts;
  token: { token: string; generated: boolean; file: string | undefined } | undefined;
  timers: Timers;
}): Promise<RunningDirector> {
  const director = kind.create(parts.context);
  const live: Live = { phase: 'starting', port: options.port ?? config.port! };
  const status = statusOf({ kind, config, director, lifecycle, timers, version: options.version, live });
  // Set once the port is bound; a shutdown request cannot come before.
  let stop: (drainMs: number) => Promise<Error | undefined> = async () => undefined;
  const hosts = new Set<string>();
  const app = createComponentApp({
    routes: [
      ...directorRoutes({
        status,
        history: parts.history,
        agents: () => agentsOf(parts.discovery.components()),
        shutdown: (drainMs) => void stop(drainMs),
      }),
      ...director.routes,
    ],
    about: { title: `agency director (${config.type})`, description: DESCRIPTION, what: 'director' },
    hosts,
    tokens: token ? [{ name: 'client', token: token.token }] : undefined,
    logger,
    version: options.version,
    validateResponses: options.validateResponses === true,
  });
  const server = await listen(app.fetch, config.bind, live.port);
  const port = (live.port = (server.address() as AddressInfo).port);
  for (const host of allowedHosts(config.bind, port, wildcardNames(config.bind))) hosts.add(host);
  const shown = config.bind.includes(':') ? `[${config.bind}]` : config.bind;
  const url = `http://${shown === '0.0.0.0' ? '127.0.0.1' : shown}:${port}`;
  lifecycle.info(`listening on ${url}; starting (${config.type} director)`);
  parts.discovery.start();
  live.phase = 'running';
  lifecycle.info(`running`);
  const ran = director.run().then(
    () => undefined,
    (error: unknown) => {
      lifecycle.error(`stopped by an error: ${(error as Error).message}`);
      return error as Error;
    },
  );
  stop = stopper({ ran, parts, live, lifecycle, timers, server });
  // A run that ends by itself (done, or failed) stops the director too.
  const closed = ran.then(() => stop(0));
  return {
    url,
    name: config.name,
    type: config.type,
    newToken: token?.generated ? token.token : undefined,
    tokenFile: token?.file,
    closed,
    stop: (drainMs = 0) => stop(drainMs),
  };
}

// Stops the director once: new work stops at once, work in flight gets `drainMs`, then the port closes. Resolves
// with the error its run failed with, if it did.
function stopper({
  ran,
  parts,
  live,
  lifecycle,
  timers,
  server,
}: {
  ran: Promise<Error | undefined>;
  parts: Parts;
  live: Live;
  lifecycle: LifecycleLog;
  timers: Timers;
  server: Server;
}): (drainMs: number) => Promise<Error | undefined> {
  let closing: Promise<Error | undefined> | undefined;
  return (drainMs) =>
    (closing ??= (async () => {
      live.phase = 'stopping';
      lifecycle.info(`shutting down; work in flight has ${Math.round(drainMs / 1000)} s`);
      parts.stopping.abort();
      const halt = timers.setTimeout(() => parts.halt.abort(), drainMs);
      const failed = await ran;
      timers.clearTimeout(halt);
      parts.halt.abort();
      parts.discovery.stop();
      await shutDownServer(server);
      lifecycle.info('stopped');
      return failed;
    })());
}

type Live = { phase: 'starting' | 'running' | 'stopping'; port: number };

// The director's `/status`: the host's facts and its kind's activity.
function statusOf({
  kind,
  config,
  director,
  lifecycle,
  timers,
  version,
  live,
}: {
  kind: DirectorKind;
  config: DirectorConfigBase;
  director: Director;
  lifecycle: LifecycleLog;
  timers: Timers;
  version: string;
  live: Live;
}): () => WorkerStatus {
  const startedAt = timers.now();
  return () => {
    const activity = director.status();
    const running = live.phase === 'running';
    return {
      type: 'director',
      interfaces: ['statusable', 'observable', ...kind.interfaces],
      name: config.name,
      version,
      state: live.phase === 'running' ? activity.state : live.phase,
      uptime_seconds: Math.max(0, Math.floor((timers.now() - startedAt) / 1000)),
      current_task: running ? activity.current_task : null,
      config: {
        director_type: config.type,
        pid: process.pid,
        port: live.port,
        bind: config.bind,
        ...activity.config,
      },
      log: lifecycle.recent(),
    };
  };
}

const DESCRIPTION =
  'A director daemon (seed 004): the universal /status and /shutdown, its history and the workers it sees, and ' +
  'the routes of its kind. Bound to loopback it needs no token; bound elsewhere every route needs ' +
  '`Authorization: Bearer <token>`.';

function isLoopback(bind: string): boolean {
  return ['127.0.0.1', '::1', 'localhost'].includes(bind);
}
