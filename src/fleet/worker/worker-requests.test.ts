// What the worker refuses, and how: bodies, fields, hosts, origins, tokens, shutdown.
import { describe, expect, it } from 'vitest';
import { until, workerKit } from '../../../test/support/worker-kit.ts';

type Task = { task_id: string; session_id: string; state: string };

describe('the worker refuses bad requests with the field named', () => {
  it.each([
    [{}, 'prompt', 'Invalid input: expected string, received undefined'],
    [{ prompt: '' }, 'prompt', 'Too small: expected string to have >=1 characters'],
    [{ prompt: 42 }, 'prompt', 'Invalid input: expected string, received number'],
    [{ prompt: 'x', timeout_seconds: '30' }, 'timeout_seconds', 'Invalid input: expected number, received string'],
    [{ prompt: 'x', timeout_seconds: 0 }, 'timeout_seconds', 'Too small: expected number to be >0'],
    [{ prompt: 'x', session_id: 'abc' }, 'session_id', 'must be a session id (a UUID)'],
    [{ prompt: 'x', project: { name: 'p' } }, 'project.prompt', 'Invalid input: expected string, received undefined'],
    [{ prompt: 'x', env: { lower: 'v' } }, 'env.lower', 'Invalid key in record'],
    [{ prompt: 'x', credentials: { a: 'b' } }, 'credentials', 'unknown field "credentials"'],
    [{ prompt: 'x', __proto__: { polluted: true } }, '__proto__', 'unknown field "__proto__"'],
  ])('%j → 400 on %s', async (body, field, message) => {
    const kit = await workerKit();
    // A literal __proto__ key in an object literal sets the prototype; on the wire it is a key like any other.
    const text = field === '__proto__' ? '{"prompt":"x","__proto__":{"polluted":true}}' : JSON.stringify(body);
    const answer = await kit.json('/task', { body: text });
    expect(answer).toEqual({
      status: 400,
      body: {
        error: 'validation_error',
        message: `${field}: ${message}`,
        details: { field, issues: expect.any(Number), agency_code: 'invalid_argument', retryable: false },
      },
    });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it.each([
    ['HOME', 'is set by the worker'],
    ['LD_PRELOAD', 'would run code outside the sandbox'],
    ['NODE_OPTIONS', 'would run code outside the sandbox'],
    ['CLAUDE_CODE_OAUTH_TOKEN', "is a credential's variable"],
    ['ANTHROPIC_BASE_URL', "is set by the worker's config (env)"],
    ['OPENAI_BASE_URL', 'decides where the executor connects'],
    ['HTTPS_PROXY', 'decides where the executor connects'],
    ['NODE_TLS_REJECT_UNAUTHORIZED', 'which servers it trusts'],
  ])('env.%s is refused', async (name, why) => {
    const kit = await workerKit({
      config: {
        credentials: { 'claude-token': 'CLAUDE_CODE_OAUTH_TOKEN' },
        env: { ANTHROPIC_BASE_URL: 'http://127.0.0.1:8080' },
      },
    });
    const answer = await kit.json('/task', { json: { prompt: 'x', env: { [name]: 'value' } } });
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ error: 'validation_error', details: { field: `env.${name}` } });
    expect(String(answer.body.message)).toContain(why);
    expect(kit.gate.runs).toHaveLength(0);
  });

  it('answers 400 for malformed JSON, 415 for another content type and 413 for a huge body', async () => {
    const kit = await workerKit({ bodyBytes: 4096 });
    expect(await kit.json('/task', { body: '{"prompt": "x",' })).toMatchObject({
      status: 400,
      body: { error: 'validation_error', message: 'body: not valid JSON', details: { field: 'body' } },
    });
    const text = await kit.request('/task', { body: 'prompt=x', headers: { 'content-type': 'text/plain' } });
    expect(text.status).toBe(415);
    const huge = await kit.json('/task', { json: { prompt: 'x'.repeat(10_000) } });
    expect(huge).toMatchObject({ status: 413, body: { error: 'payload_too_large', details: { limit: 4096 } } });
    expect(await kit.json('/history?limit=101')).toMatchObject({
      status: 400,
      body: { details: { field: 'query.limit' } },
    });
    expect(await kit.json('/history?page=0')).toMatchObject({
      status: 400,
      body: { details: { field: 'query.page' } },
    });
    expect(((await kit.json('/status')).body as { state: string }).state).toBe('idle');
  });

  it('refuses another Host (DNS rebinding) and a cross-origin request', async () => {
    const kit = await workerKit();
    expect(await kit.json('/status', { headers: { host: 'evil.example:9000' } })).toMatchObject({
      status: 403,
      body: { error: 'forbidden', details: { field: 'host' } },
    });
    expect(
      await kit.json('/task', { json: { prompt: 'x' }, headers: { origin: 'https://evil.example' } }),
    ).toMatchObject({ status: 403, body: { error: 'forbidden', details: { field: 'origin' } } });
    expect((await kit.json('/status', { headers: { host: 'localhost:9000' } })).status).toBe(200);
  });

  it('requires the bearer token on every route when it has tokens', async () => {
    const kit = await workerKit({ tokens: [{ name: 'director', token: 'worker-token-0123456789abcdef' }] });
    expect(await kit.json('/status')).toMatchObject({ status: 401, body: { error: 'unauthorized' } });
    expect(
      (await kit.json('/status', { headers: { authorization: 'Bearer wrong-token-0123456789abcd' } })).status,
    ).toBe(401);
    expect((await kit.json('/openapi.json')).status).toBe(401);
    const authorized = { authorization: 'Bearer worker-token-0123456789abcdef' };
    expect((await kit.json('/status', { headers: authorized })).status).toBe(200);
    expect((await kit.json('/task', { json: { prompt: 'x' }, headers: authorized })).status).toBe(201);
  });

  it('describes itself in OpenAPI, every route with its schemas', async () => {
    const kit = await workerKit();
    const document = (await kit.json('/openapi.json')).body as {
      info: { title: string };
      paths: Record<string, object>;
    };
    expect(document.info.title).toBe('agency worker');
    expect(Object.keys(document.paths)).toEqual([
      '/status',
      '/task',
      '/task/{id}',
      '/task/{id}/cancel',
      '/task/{id}/continue',
      '/task/{id}/end',
      '/task/{id}/debug',
      '/tasks',
      '/history',
      '/history/{id}',
      '/shutdown',
    ]);
  });
});

describe('shutdown', () => {
  it('is refused with 409 task_in_progress while a task runs, unless forced; forced, the task gets its drain time', async () => {
    const kit = await workerKit();
    const { task_id: id } = (await kit.json('/task', { json: { prompt: 'running' } })).body as Task;
    const run = await kit.gate.next();
    expect(await kit.json('/shutdown', { json: {} })).toEqual({
      status: 409,
      body: {
        error: 'task_in_progress',
        message: `Task ${id} is running. Use force=true to terminate.`,
        task_id: id,
        details: { task_id: id, agency_code: 'task_active', retryable: true },
      },
    });
    expect(await kit.json('/shutdown', { json: { force: true, timeout_seconds: 0 } })).toEqual({
      status: 202,
      body: { message: 'Shutdown initiated', drain_timeout: 0 },
    });
    expect(((await kit.json('/status')).body as { state: string }).state).toBe('stopping');
    expect(await kit.json('/task', { json: { prompt: 'late' } })).toMatchObject({
      status: 503,
      body: { error: 'service_unavailable', details: { state: 'stopping' } },
    });
    await Promise.all(kit.shutdowns);
    expect(run.request.signal.aborted).toBe(true);
    expect((await kit.json(`/task/${id}`)).body).toMatchObject({
      state: 'cancelled',
      error: { type: 'cancelled', message: 'Cancelled: the worker shut down' },
    });
  });

  it('lets a running task finish within the drain time', async () => {
    const kit = await workerKit();
    const { task_id: id } = (await kit.json('/task', { json: { prompt: 'almost done' } })).body as Task;
    const run = await kit.gate.next();
    expect((await kit.json('/shutdown', { json: { force: true, timeout_seconds: 30 } })).status).toBe(202);
    run.finish({ output: 'finished in time' });
    await Promise.all(kit.shutdowns);
    expect(run.request.signal.aborted).toBe(false);
    expect((await kit.json(`/task/${id}`)).body).toMatchObject({ state: 'idle', output: 'finished in time' });
  });

  it('drains at once when idle', async () => {
    const kit = await workerKit();
    expect(await kit.json('/shutdown', { body: '' })).toEqual({
      status: 202,
      body: { message: 'Shutdown initiated', drain_timeout: 30 },
    });
    await until(() => (kit.shutdowns.length === 1 ? true : undefined));
    await Promise.all(kit.shutdowns);
  });
});
