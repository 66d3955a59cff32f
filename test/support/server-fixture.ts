// A task service and server app over a throwaway data root, for route tests with app.request() (no socket): runs use
// the scripted phase model and the fixture tools, and every JSON answer is checked against its route's schema.
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { agencyRootAt, type AgencyRoot } from '../../src/config/agency-root.ts';
import { silentLogger } from '../../src/service/service-logger.ts';
import { createTaskService, type TaskService, type TaskServiceOptions } from '../../src/service/task-service.ts';
import { createServerApp, type ServerAppOptions } from '../../src/server/app.ts';
import { allowedHosts } from '../../src/http/hosts.ts';
import { createRunner } from '../../src/task/runner.ts';
import { fixtureTools, phaseModel, type PhaseScript } from './governed-fixture.ts';
import { until } from './until.ts';

export { until };

export const TOKEN = 'test-token-0123456789abcdef';
export const HOST = '127.0.0.1:7420';
export const ORIGIN = `http://${HOST}`;

export type ServerFixture = {
  root: AgencyRoot;
  service: TaskService;
  app: ReturnType<typeof createServerApp>;
  /** A request with the bearer token and this server's Host. */
  api(path: string, init?: RequestInit & { json?: unknown }): Promise<Response>;
};

export async function serverFixture(
  options: { script?: PhaseScript; service?: Partial<TaskServiceOptions>; app?: Partial<ServerAppOptions> } = {},
): Promise<ServerFixture> {
  const root = agencyRootAt(await mkdtemp(join(tmpdir(), 'agency-root-')));
  const service = await createTaskService({
    root,
    models: ['test:phase-model', 'test:other-model'],
    approvalModes: ['file', 'auto'],
    runnerFor: async () => createRunner({ model: phaseModel(options.script), tools: (paths) => fixtureTools(paths) }),
    ...options.service,
  });
  const app = createServerApp({
    service,
    tokens: [{ name: 'ana', token: TOKEN }],
    sessionKey: new Uint8Array(32).fill(7),
    hosts: allowedHosts('127.0.0.1', 7420),
    scheme: 'http',
    logger: silentLogger,
    version: '0.1.0',
    policy: 'default',
    validateResponses: true,
    heartbeatMs: 60_000,
    ...options.app,
  });
  const api = (path: string, init: RequestInit & { json?: unknown } = {}) => {
    const headers = new Headers(init.headers);
    if (!headers.has('authorization')) headers.set('authorization', `Bearer ${TOKEN}`);
    if (!headers.has('host')) headers.set('host', HOST);
    let body = init.body;
    if (init.json !== undefined) {
      headers.set('content-type', 'application/json');
      body = JSON.stringify(init.json);
    }
    return Promise.resolve(app.request(`http://${HOST}${path}`, { ...init, headers, body: body ?? null }));
  };
  return { root, service, app, api };
}
