// The API's attack corpus: every request below must be refused (0 accepted), with the status and code the error
// table gives, and nothing on disk may change because of it.
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { inboxSchema, taskActionSchema } from '../../src/api/schemas.ts';
import { HOST, ORIGIN, type ServerFixture, serverFixture, TOKEN, until } from '../support/server-fixture.ts';

let fixture: ServerFixture;
afterEach(async () => {
  await fixture?.service.close();
});

const brief = '# Summarise\n\nSummarise task/input.txt.\n';
const raw = (path: string, init: RequestInit = {}) =>
  Promise.resolve(fixture.app.request(`http://${HOST}${path}`, init));

async function login(): Promise<string> {
  const response = await raw('/auth/login', {
    method: 'POST',
    headers: { host: HOST, origin: ORIGIN, 'content-type': 'application/json' },
    body: JSON.stringify({ token: TOKEN }),
  });
  expect(response.status).toBe(204);
  const cookie = response.headers.get('set-cookie') ?? '';
  expect(cookie).toMatch(/HttpOnly/);
  expect(cookie).toMatch(/SameSite=Strict/);
  return cookie.split(';')[0]!;
}

async function waitingTask() {
  const started = taskActionSchema.parse(
    await (await fixture.api('/agent/tasks/do/async', { method: 'POST', json: { brief } })).json(),
  );
  const item = await until(async () => {
    const inbox = inboxSchema.parse(await (await fixture.api('/agent/approvals')).json());
    return inbox.items.find((entry) => entry.task_id === started.task_id);
  });
  return { id: started.task_id, request: item.request };
}

describe('authentication', () => {
  it.each([
    ['no credentials', {}],
    ['a wrong token', { authorization: `Bearer ${TOKEN}x` }],
    ['a short token', { authorization: 'Bearer t' }],
    ['an empty token', { authorization: 'Bearer ' }],
    ['the token as Basic', { authorization: `Basic ${Buffer.from(`x:${TOKEN}`).toString('base64')}` }],
    ['a forged session cookie', { cookie: 'agency_session=eyJuIjoiYW5hIiwiZSI6OTk5OTk5OTk5OTk5OX0.AAAA' }],
  ])('%s: 401 on every route', async (_, headers) => {
    fixture = await serverFixture();
    for (const [method, path] of [
      ['GET', '/agent/tasks'],
      ['GET', '/agent/server'],
      ['POST', '/agent/tasks/do/async'],
      ['GET', '/agent/approvals'],
      ['GET', '/openapi.json'],
      ['GET', '/auth/session'],
    ] as const) {
      const response = await raw(path, { method, headers: { host: HOST, ...headers } });
      expect([path, response.status]).toEqual([path, 401]);
      if (path !== '/openapi.json') expect((await response.json()).error).toBe('unauthorized');
    }
    expect(await readdir(fixture.root.tasks)).toEqual([]);
  });

  it('counts failed logins: the eleventh in a minute is refused with 429', async () => {
    fixture = await serverFixture();
    for (let attempt = 0; attempt < 10; attempt++) {
      const response = await raw('/auth/login', {
        method: 'POST',
        headers: { host: HOST, 'content-type': 'application/json' },
        body: JSON.stringify({ token: 'wrong-token' }),
      });
      expect(response.status).toBe(401);
    }
    const blocked = await raw('/auth/login', {
      method: 'POST',
      headers: { host: HOST, 'content-type': 'application/json' },
      body: JSON.stringify({ token: TOKEN }),
    });
    expect(blocked.status).toBe(429);
  });

  it('logs a browser in with ?token= once, and removes the token from the address', async () => {
    fixture = await serverFixture();
    const response = await raw(`/tasks?token=${TOKEN}&tab=1`, { headers: { host: HOST } });
    expect(response.status).toBe(303);
    expect(response.headers.get('location')).toBe('/tasks?tab=1');
    const cookie = (response.headers.get('set-cookie') ?? '').split(';')[0]!;
    const session = await raw('/auth/session', { headers: { host: HOST, cookie } });
    expect(await session.json()).toEqual({ principal: 'ana' });
    const wrong = await raw(`/?token=nope`, { headers: { host: HOST } });
    expect(wrong.status).toBe(303);
    expect(wrong.headers.get('set-cookie')).toBeNull();
  });
});

describe('DNS rebinding and CSRF', () => {
  it.each([
    ['another name', 'evil.example:7420'],
    ['the right name on another port', '127.0.0.1:80'],
    ['no port', 'localhost'],
    ['a name ending like ours', 'x127.0.0.1:7420'],
  ])('a Host of %s is refused with 403', async (_, host) => {
    fixture = await serverFixture();
    const response = await raw('/agent/tasks', { headers: { host, authorization: `Bearer ${TOKEN}` } });
    expect(response.status).toBe(403);
    expect((await response.json()).error).toBe('forbidden');
  });

  it.each([
    ['another site', 'https://evil.example'],
    ['the null origin', 'null'],
    ['our host over https', `https://${HOST}`],
    ['a lookalike', 'http://127.0.0.1:7420.evil.example'],
  ])('an Origin of %s is refused with 403, even with the token', async (_, origin) => {
    fixture = await serverFixture();
    const response = await fixture.api('/agent/tasks/do/async', {
      method: 'POST',
      json: { brief },
      headers: { origin },
    });
    expect(response.status).toBe(403);
    expect(await readdir(fixture.root.tasks)).toEqual([]);
  });

  it('a change made with the cookie needs this Origin (CSRF); a read does not', async () => {
    fixture = await serverFixture();
    const cookie = await login();
    const headers = { host: HOST, cookie, 'content-type': 'application/json' };
    const noOrigin = await raw('/agent/tasks/do/async', { method: 'POST', headers, body: JSON.stringify({ brief }) });
    expect(noOrigin.status).toBe(403);
    const read = await raw('/agent/tasks', { headers });
    expect(read.status).toBe(200);
    const sameOrigin = await raw('/agent/tasks/do/async', {
      method: 'POST',
      headers: { ...headers, origin: ORIGIN },
      body: JSON.stringify({ brief, hold: true }),
    });
    expect(sameOrigin.status).toBe(202);
  });
});

describe('bodies, ids and names', () => {
  it('refuses an oversized body with 413 before reading it', async () => {
    fixture = await serverFixture({ app: { bodyBytes: 4096 } });
    const response = await fixture.api('/agent/tasks/do/async', {
      method: 'POST',
      json: { brief: 'x'.repeat(5000) },
    });
    expect(response.status).toBe(413);
    expect((await response.json()).error).toBe('payload_too_large');
  });

  it.each([
    ['malformed JSON', '{"brief": ', 400, 'validation_error', 'body'],
    [
      'an unknown field',
      JSON.stringify({ brief, approvals: { mode: 'file', sneaky: 1 } }),
      400,
      'validation_error',
      'approvals',
    ],
    ['an unknown top-level field', JSON.stringify({ brief, sneaky: 1 }), 400, 'validation_error', 'sneaky'],
    ['a wrong type', JSON.stringify({ brief: 42 }), 400, 'validation_error', 'brief'],
    [
      'a model the server does not run',
      JSON.stringify({ brief, model: 'replay:/etc/passwd' }),
      400,
      'validation_error',
      'model',
    ],
    [
      'an SSRF model',
      JSON.stringify({ brief, model: 'openai-compatible:http://169.254.169.254/v1#x' }),
      400,
      'validation_error',
      'model',
    ],
  ])('refuses %s, naming the field', async (_, body, status, code, field) => {
    fixture = await serverFixture();
    const response = await fixture.api('/agent/tasks/do/async', {
      method: 'POST',
      body,
      headers: { 'content-type': 'application/json' },
    });
    expect(response.status).toBe(status);
    const answer = await response.json();
    expect(answer.error).toBe(code);
    expect(String(answer.details.field)).toContain(field);
    expect(await readdir(fixture.root.tasks)).toEqual([]);
  });

  it.each([
    '../../etc',
    '..%2F..%2Fetc',
    'task_01M89MZNAP828YS61ZDP6W894Q%2F..%2F..',
    'task_../../x',
    'TASK_01M89MZNAP828YS61ZDP6W894Q',
    `task_${'A'.repeat(500)}`,
  ])('an id of %j is 400 or 404, never a path', async (id) => {
    fixture = await serverFixture();
    for (const path of [`/agent/tasks/${id}`, `/agent/tasks/${id}/result`, `/agent/tasks/${id}/events`]) {
      const response = await fixture.api(path);
      // A literal "../" is resolved by the URL itself, to a page path outside the API: the dashboard's shell.
      if (response.status === 200) {
        expect(response.headers.get('content-type')).toContain('text/html');
        expect(await response.text()).not.toContain('task_id');
      } else expect([400, 404]).toContain(response.status);
    }
  });

  it.each(['../evil.sh', '.hidden', 'a/b.txt', 'brief.md', 'x'.repeat(300), 'nul\u0000.txt', '..'])(
    'an upload named %j is refused, and nothing is written',
    async (name) => {
      fixture = await serverFixture();
      const held = taskActionSchema.parse(
        await (await fixture.api('/agent/tasks/do/async', { method: 'POST', json: { brief, hold: true } })).json(),
      );
      const form = new FormData();
      form.append('files', new Blob(['evil']), name);
      const response = await fixture.api(`/agent/tasks/${held.task_id}/upload`, { method: 'POST', body: form });
      expect(response.status).toBe(400);
      expect(await readdir(join(fixture.root.tasks, held.task_id, 'task'))).toEqual(['brief.md']);
      expect(await readdir(join(fixture.root.tasks, held.task_id))).toEqual(['progress', 'request.json', 'task']);
    },
  );

  it('an inline file named to escape is refused', async () => {
    fixture = await serverFixture();
    const response = await fixture.api('/agent/tasks/do/async', {
      method: 'POST',
      json: { brief, files: [{ name: '../../server/token', content: 'x' }] },
    });
    expect(response.status).toBe(400);
    expect(await readdir(fixture.root.tasks)).toEqual([]);
  });

  it('a deliverable path that is not a deliverable is 404, whatever it points at', async () => {
    fixture = await serverFixture();
    const done = await (
      await fixture.api('/agent/tasks/do', { method: 'POST', json: { brief, approvals: { mode: 'auto' } } })
    ).json();
    for (const path of [
      '../spec.json',
      'progress/spec.json',
      'progress/artifacts/../spec.json',
      '%2e%2e/task/brief.md',
      'progress/events.ndjson',
    ]) {
      const response = await fixture.api(`/agent/tasks/${done.task_id}/deliverables/${path}`);
      expect([path, response.status]).toEqual([path, 404]);
    }
  });
});

describe('decisions', () => {
  it("refuses a decision naming another task's request, and a conflicting replay", async () => {
    fixture = await serverFixture();
    const first = await waitingTask();
    const second = await waitingTask();
    const crossed = await fixture.api(`/agent/approvals/${first.request.id}/decision`, {
      method: 'POST',
      json: { decision: 'approved', task_id: second.id },
    });
    expect(crossed.status).toBe(404);
    const unknown = await fixture.api('/agent/approvals/req_01M89MZNAP828YS61ZDP6W894Q/decision', {
      method: 'POST',
      json: { decision: 'approved' },
    });
    expect(unknown.status).toBe(404);
    const denied = await fixture.api(`/agent/approvals/${first.request.id}/decision`, {
      method: 'POST',
      json: { decision: 'denied', reason: 'no' },
    });
    expect(denied.status).toBe(200);
    // The same decision again is idempotent; a different one is refused: the first decision stands.
    const replayed = await fixture.api(`/agent/approvals/${first.request.id}/decision`, {
      method: 'POST',
      json: { decision: 'denied', reason: 'no' },
    });
    expect([200, 409]).toContain(replayed.status);
    const flipped = await fixture.api(`/agent/approvals/${first.request.id}/decision`, {
      method: 'POST',
      json: { decision: 'approved' },
    });
    expect(flipped.status).toBe(409);
    await until(async () =>
      (await fixture.service.summary(first.id)).finish_reason === 'approval.denied' ? true : undefined,
    );
  });

  it('signs a decision with the authenticated caller, never a name from the body', async () => {
    fixture = await serverFixture();
    const task = await waitingTask();
    const response = await fixture.api(`/agent/approvals/${task.request.id}/decision`, {
      method: 'POST',
      json: { decision: 'approved', approved_by: 'mallory' },
    });
    expect(response.status).toBe(400);
    const ok = await fixture.api(`/agent/approvals/${task.request.id}/decision`, {
      method: 'POST',
      json: { decision: 'approved' },
    });
    expect((await ok.json()).approved_by).toBe('ana');
  });

  it('never turns an unknown error into a stack trace', async () => {
    fixture = await serverFixture({
      service: {
        runnerFor: async () => {
          throw new Error('secret internals at /srv/x.ts:12');
        },
      },
    });
    const response = await fixture.api('/agent/tasks/do', { method: 'POST', json: { brief } });
    const text = await response.text();
    expect(text).not.toContain('/srv/x.ts');
    expect(text).not.toMatch(/at .*\.ts:\d+/);
  });
});
