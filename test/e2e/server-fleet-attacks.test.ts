// The fleet routes' attack corpus: no credentials, cross-site changes, names that are not discovered workers (the
// server calls only what discovery found), oversized and malformed bodies, and workers that answer garbage, hang,
// fail or refuse the server. None is accepted; no worker gets a task it should not; the server's own credentials
// never reach a worker; a worker's failure is a 502 or 504, never the client's own 401.
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WorkerStatus } from '../../src/fleet/api/worker-schemas.ts';
import { type FakeComponent, startFakeComponent } from '../support/fake-component.ts';
import { type FleetServer, fleetServer } from '../support/fleet-server.ts';
import { HOST, ORIGIN, TOKEN } from '../support/server-fixture.ts';

let worker: FakeComponent;
let director: FakeComponent;
let probe: Probe;
let server: FleetServer;

beforeAll(async () => {
  [worker, director, probe] = await Promise.all([
    startFakeComponent({ name: 'w1' }),
    startFakeComponent({ name: 'boss', type: 'director' }),
    startProbe(),
  ]);
  server = await fleetServer({ urls: [worker.url, director.url, probe.url], timeoutMs: 600 });
  await server.until((fleet) => fleet.components.every((component) => component.health === 'green' && component.name));
}, 30_000);

afterAll(async () => {
  await server?.close();
  await Promise.all([worker?.close(), director?.close(), probe?.close()]);
});

const TASK = 'task-01m89x0h6fza20dv0bay16avcs';
const raw = (path: string, init: RequestInit = {}) =>
  Promise.resolve(server.app.request(`http://${HOST}${path}`, init));
const post = (path: string, body: string, headers: Record<string, string> = {}) =>
  raw(path, {
    method: 'POST',
    headers: { host: HOST, authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', ...headers },
    body,
  });
const answer = async (response: Response | Promise<Response>) => {
  const settled = await response;
  return {
    status: settled.status,
    body: (await settled.json()) as { error: string; details: Record<string, unknown> },
  };
};
const ROUTES: Array<['GET' | 'POST', string]> = [
  ['GET', '/agent/fleet'],
  ['GET', '/agent/fleet/events'],
  ['GET', '/agent/fleet/components/w1'],
  ['POST', '/agent/fleet/workers/w1/tasks'],
  ['GET', `/agent/fleet/workers/w1/tasks/${TASK}`],
  ['POST', `/agent/fleet/workers/w1/tasks/${TASK}/cancel`],
  ['POST', `/agent/fleet/workers/w1/tasks/${TASK}/continue`],
  ['POST', `/agent/fleet/workers/w1/tasks/${TASK}/end`],
  ['GET', '/agent/fleet/workers/w1/history'],
  ['GET', `/agent/fleet/workers/w1/history/${TASK}`],
  ['GET', '/agent/fleet/tasks'],
  ['GET', `/agent/fleet/tasks/${TASK}/events`],
];

describe('credentials and cross-site requests', () => {
  it.each([
    ['no credentials', {}],
    ['a wrong token', { authorization: `Bearer ${TOKEN}x` }],
    ['a forged session cookie', { cookie: 'agency_session=eyJuIjoiYW5hIiwiZSI6OTk5OTk5OTk5OTk5OX0.AAAA' }],
  ])('%s: 401 on every fleet route, and the worker gets nothing', async (_, headers) => {
    for (const [method, path] of ROUTES) {
      const response = await raw(path, {
        method,
        headers: { host: HOST, 'content-type': 'application/json', ...headers },
        ...(method === 'POST' ? { body: JSON.stringify({ prompt: 'hello' }) } : {}),
      });
      expect([path, response.status]).toEqual([path, 401]);
    }
    expect(worker.tasks.size).toBe(0);
  });

  it('refuses a change made with the session cookie from another site, or without an Origin', async () => {
    const login = await raw('/auth/login', {
      method: 'POST',
      headers: { host: HOST, origin: ORIGIN, 'content-type': 'application/json' },
      body: JSON.stringify({ token: TOKEN }),
    });
    const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0]!;
    const send = (headers: Record<string, string>) =>
      raw('/agent/fleet/workers/w1/tasks', {
        method: 'POST',
        headers: { host: HOST, cookie, 'content-type': 'application/json', ...headers },
        body: JSON.stringify({ prompt: 'hello' }),
      });
    for (const headers of [{}, { origin: 'http://evil.example' }, { origin: 'null' }]) {
      const refused = await answer(send(headers));
      expect([JSON.stringify(headers), refused.status, refused.body.error]).toEqual([
        JSON.stringify(headers),
        403,
        'forbidden',
      ]);
    }
    expect(worker.tasks.size).toBe(0);
    // The same request from the dashboard's own origin is taken: the refusals above were for the origin alone.
    const taken = await send({ origin: ORIGIN });
    expect(taken.status).toBe(201);
    const { task_id: id } = (await taken.json()) as { task_id: string };
    expect(worker.tasks.has(id)).toBe(true);
    await post(`/agent/fleet/workers/w1/tasks/${id}/cancel`, '{}');
  });

  it('never sends a worker the caller’s token or cookie, and a worker’s 401 is a 502, not the caller’s 401', async () => {
    const refused = await answer(post('/agent/fleet/workers/probe/tasks', JSON.stringify({ prompt: 'hi' })));
    expect(refused.status).toBe(502);
    expect(refused.body).toMatchObject({
      error: 'bad_gateway',
      details: { worker: 'probe', agency_code: 'worker_failed' },
    });
    expect(JSON.stringify(refused.body)).toContain('token');
    expect(probe.requests.length).toBeGreaterThan(1);
    for (const headers of probe.requests) {
      expect(headers.authorization).toBeUndefined();
      expect(headers.cookie).toBeUndefined();
      expect(JSON.stringify(headers)).not.toContain(TOKEN);
    }
  });
});

describe('only discovered workers are called (no SSRF)', () => {
  it('refuses names that are not a discovered worker: 404 or 400, and nothing is called', async () => {
    const target = await startProbe();
    const port = new URL(target.url).port;
    try {
      for (const name of [
        'nobody',
        `127.0.0.1:${port}`,
        encodeURIComponent(target.url),
        encodeURIComponent(`//127.0.0.1:${port}`),
        `localhost%3A${port}`,
        'w1%2F..%2F..',
        '%2e%2e',
        'boss',
      ]) {
        const refused = await answer(post(`/agent/fleet/workers/${name}/tasks`, JSON.stringify({ prompt: 'hello' })));
        expect([name, [400, 404].includes(refused.status)]).toEqual([name, true]);
        expect(['validation_error', 'not_found']).toContain(refused.body.error);
      }
      const ignored = await raw(`/agent/fleet?url=${encodeURIComponent(target.url)}`, {
        headers: { host: HOST, authorization: `Bearer ${TOKEN}` },
      });
      expect((await ignored.text()).includes(target.url)).toBe(false);
      const director = await answer(post('/agent/fleet/workers/boss/tasks', JSON.stringify({ prompt: 'hello' })));
      expect(director.body).toMatchObject({ error: 'not_found', details: { agency_code: 'no_worker' } });
      expect(target.requests).toEqual([]);
    } finally {
      await target.close();
    }
  });
});

describe('bodies', () => {
  it('refuses oversized and malformed bodies, naming the field; the worker gets no task', async () => {
    const before = worker.tasks.size;
    const cases: Array<[string, string, number, string | undefined]> = [
      ['a prompt over 200,000 characters', JSON.stringify({ prompt: 'x'.repeat(200_001) }), 400, 'prompt'],
      ['a body over 1 MiB', JSON.stringify({ prompt: 'x'.repeat(1_100_000) }), 413, undefined],
      ['no prompt', '{}', 400, 'prompt'],
      ['an empty prompt', JSON.stringify({ prompt: '' }), 400, 'prompt'],
      ['a prompt that is a number', JSON.stringify({ prompt: 5 }), 400, 'prompt'],
      ['cut JSON', '{"prompt": "hel', 400, 'body'],
      ['env, which the server does not pass on', JSON.stringify({ prompt: 'x', env: { LD_PRELOAD: '/x' } }), 400, ''],
      ['a project', JSON.stringify({ prompt: 'x', project: { name: 'p', prompt: 'q' } }), 400, ''],
      ['a negative timeout', JSON.stringify({ prompt: 'x', timeout_seconds: -1 }), 400, 'timeout_seconds'],
      ['a timeout over a day', JSON.stringify({ prompt: 'x', timeout_seconds: 86_401 }), 400, 'timeout_seconds'],
      ['a session id that is not one', JSON.stringify({ prompt: 'x', session_id: '../../etc' }), 400, 'session_id'],
      ['__proto__', '{"prompt": "x", "__proto__": {"polluted": true}}', 400, ''],
    ];
    for (const [what, body, status, field] of cases) {
      const refused = await answer(post('/agent/fleet/workers/w1/tasks', body));
      expect([what, refused.status]).toEqual([what, status]);
      if (field) expect([what, refused.body.details.field]).toEqual([what, field]);
    }
    const typed = await answer(post('/agent/fleet/workers/w1/tasks', 'prompt=x', { 'content-type': 'text/plain' }));
    expect(typed.status).toBe(415);
    const badId = await answer(post('/agent/fleet/workers/w1/tasks/not-a-task/continue', '{"prompt":"x"}'));
    expect([badId.status, badId.body.details.field]).toEqual([400, 'path.id']);
    const noPrompt = await answer(post(`/agent/fleet/workers/w1/tasks/${TASK}/continue`, '{}'));
    expect([noPrompt.status, noPrompt.body.details.field]).toEqual([400, 'prompt']);
    const page = await answer(raw('/agent/fleet/workers/w1/history?limit=1000', { headers: auth() }));
    expect([page.status, page.body.details.field]).toEqual([400, 'query.limit']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(worker.tasks.size).toBe(before);
    expect(worker.contractBreaks).toEqual([]);
  });
});

describe("the fleet database's tasks without one", () => {
  const get = (path: string) => answer(raw(path, { headers: { host: HOST, authorization: `Bearer ${TOKEN}` } }));

  it('answers 404 naming AGENCY_DATABASE_URL (to a read and to a task to queue), and 400 for a task id that is not one', async () => {
    for (const path of ['/agent/fleet/tasks', `/agent/fleet/tasks/${TASK}/events`]) {
      const { status, body } = await get(path);
      expect([path, status, body.error]).toEqual([path, 404, 'not_found']);
      expect((body as unknown as { message: string }).message).toContain('AGENCY_DATABASE_URL');
    }
    expect((await get('/agent/fleet/tasks/task-..%2F..%2Fetc/events')).status).toBe(400);
    const posts: [string, string][] = [
      ['/agent/fleet/tasks', JSON.stringify({ prompt: 'hello' })],
      [`/agent/fleet/tasks/${TASK}/cancel`, ''],
      [`/agent/fleet/tasks/${TASK}/continue`, JSON.stringify({ prompt: 'next' })],
      [`/agent/fleet/tasks/${TASK}/end`, ''],
    ];
    const oversized = await answer(post('/agent/fleet/tasks', JSON.stringify({ prompt: 'x'.repeat(1_100_000) })));
    expect(oversized.status).toBe(413);
    for (const [path, body] of posts) {
      const { status, body: refused } = await answer(post(path, body));
      expect([path, status, refused.error]).toEqual([path, 404, 'not_found']);
      expect((refused as unknown as { message: string }).message).toContain('AGENCY_DATABASE_URL');
    }
  });
});

describe('workers that answer badly', () => {
  it.each([
    ['malformed JSON', 'malformed', 502, 'bad_gateway'],
    ['a shape outside the API', 'wrong-shape', 502, 'bad_gateway'],
    ['a 500 HTML page', 'error500', 502, 'bad_gateway'],
    ['no answer at all', 'hang', 504, 'timeout'],
  ] as const)('%s (%s): %i %s, within the bounded time', async (_, fault, status, error) => {
    worker.setFault('/task', fault);
    try {
      const started = Date.now();
      const refused = await answer(post('/agent/fleet/workers/w1/tasks', JSON.stringify({ prompt: 'hello' })));
      expect([refused.status, refused.body.error]).toEqual([status, error]);
      expect(refused.body.details).toMatchObject({ worker: 'w1', retryable: true });
      expect(Date.now() - started).toBeLessThan(5_000);
    } finally {
      worker.setFault('/task', undefined);
    }
  });

  it('a worker that is starting is 503; one whose history hangs is 504', async () => {
    const starting = await startFakeComponent({ name: 'late', state: 'starting' });
    const late = await fleetServer({ urls: [starting.url], timeoutMs: 400 });
    try {
      await late.until((fleet) => fleet.components[0]?.state === 'starting');
      const unavailable = await answer(
        late.api('/agent/fleet/workers/late/tasks', { method: 'POST', json: { prompt: 'hello' } }),
      );
      expect([unavailable.status, unavailable.body.error]).toEqual([503, 'service_unavailable']);
      starting.setFault('/history', 'hang');
      const slow = await answer(late.api('/agent/fleet/workers/late/history'));
      expect([slow.status, slow.body.error]).toEqual([504, 'timeout']);
    } finally {
      await late.close();
      await starting.close();
    }
  });
});

const auth = () => ({ host: HOST, authorization: `Bearer ${TOKEN}` });

type Probe = { url: string; requests: IncomingHttpHeaders[]; close(): Promise<void> };

// A component that answers `/status` as a worker named "probe" and refuses everything else with 401, as a worker
// bound beyond loopback does without its token; it keeps the headers of every request it gets.
async function startProbe(): Promise<Probe> {
  const requests: IncomingHttpHeaders[] = [];
  const server = createServer((request, response) => {
    requests.push(request.headers);
    const status: WorkerStatus = {
      type: 'agent',
      interfaces: ['statusable', 'taskable'],
      name: 'probe',
      version: '0.0.0-probe',
      state: 'idle',
      uptime_seconds: 1,
      current_task: null,
      config: {},
      log: [],
    };
    if (request.url === '/status')
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(status));
    else
      response
        .writeHead(401, { 'content-type': 'application/json' })
        .end(JSON.stringify({ error: 'unauthorized', message: 'send a token', details: { retryable: false } }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
