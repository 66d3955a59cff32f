// The client against the real server app, through app.request() (no socket): a task started, followed, approved,
// downloaded; uploads into a held task; and every kind of failure as an AgencyError with the server's code.
import { afterEach, describe, expect, it } from 'vitest';
import { HOST, type ServerFixture, serverFixture, TOKEN, until } from '../../test/support/server-fixture.ts';
import { AgencyError } from '../core/errors.ts';
import type { EventFrame } from '../task/contracts/events.ts';
import { createClient } from './create-client.ts';
import type { FetchFunction } from './transport.ts';

let fixture: ServerFixture | undefined;
afterEach(async () => {
  await fixture?.service.close();
  fixture = undefined;
});

const brief = '# Summarise the notes\n\nWrite a one-line summary of task/input.txt to artifacts/summary.md.\n';
const input = { name: 'input.txt', content: 'Agency runs governed agents. They plan, ask, act and verify.\n' };

// A fetch that hands the request to the app, as a browser or Node would send it to the server's address.
function appFetch(requests: string[] = []): FetchFunction {
  return async (url, init) => {
    requests.push(`${init.method} ${url.replace(`http://${HOST}`, '')}`);
    const headers = new Headers(init.headers);
    headers.set('host', HOST);
    if (!fixture) throw new Error('no server fixture in this test');
    return fixture.app.request(url, { ...init, headers });
  };
}

const clientFor = (token = TOKEN, requests: string[] = []) =>
  createClient({ baseUrl: `http://${HOST}/`, token, fetch: appFetch(requests) });

async function caught(promise: Promise<unknown>): Promise<AgencyError> {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  if (!AgencyError.isInstance(error)) throw new Error(`expected an AgencyError, got ${String(error)}`);
  return error;
}

describe('the client, over the server app', () => {
  it('starts a task, follows its events through the approval, decides it, and reads the result and deliverable', async () => {
    fixture = await serverFixture();
    const client = clientFor();
    expect(await client.server()).toMatchObject({ principal: 'ana', default_model: 'test:phase-model' });
    const started = await client.tasks.start({ brief, files: [input] });
    expect(started).toMatchObject({ status: 'queued' });

    const frames: EventFrame[] = [];
    for await (const frame of client.tasks.events(started.task_id)) {
      frames.push(frame);
      if (frame.type !== 'approval.requested') continue;
      // The request file is derived from the journaled frame, so the inbox may show it a few milliseconds later.
      const item = await until(async () =>
        (await client.approvals.list()).items.find((entry) => entry.task_id === started.task_id),
      );
      expect(item.request.id).toBe(frame.data?.id);
      const decision = await client.approvals.decide(String(frame.data?.id), {
        decision: 'approved',
        reason: 'looks right',
        task_id: started.task_id,
      });
      expect(decision).toMatchObject({ decision: 'approved', approved_by: 'ana', reason: 'looks right' });
    }
    expect(frames.map((frame) => frame.seq)).toEqual(frames.map((_, index) => index + 1));
    expect(frames.at(-1)).toMatchObject({ type: 'finish', data: { reason: 'completed' } });

    const result = await client.tasks.result(started.task_id, { view: 'full' });
    expect(result).toMatchObject({ finish_reason: 'completed', verified: true });
    const detail = await client.tasks.get(started.task_id);
    expect(detail).toMatchObject({ status: 'completed', last_seq: frames.length, files: ['brief.md', 'input.txt'] });
    const list = await client.tasks.list({ status: ['completed', 'failed'], limit: 5 });
    expect(list.items.map((task) => task.id)).toEqual([started.task_id]);
    expect((await client.tasks.list({ status: 'running' })).items).toEqual([]);

    const file = await client.tasks.deliverable(started.task_id, result.deliverables![0]!.path);
    expect(file.headers.get('etag')).toBe(`"${result.deliverables![0]!.sha256}"`);
    expect(await file.text()).toContain('Agency runs governed agents');

    // From a seq on, only what comes after it.
    const tail: number[] = [];
    for await (const frame of client.tasks.events(started.task_id, { after: frames.length - 2 })) tail.push(frame.seq);
    expect(tail).toEqual([frames.length - 1, frames.length]);
  });

  it('uploads files into a held task, starts it, and runs another synchronously', async () => {
    fixture = await serverFixture();
    const client = clientFor();
    const held = await client.tasks.start({ brief, hold: true, approvals: { mode: 'auto' } });
    expect(held.status).toBe('created');
    const uploaded = await client.tasks.upload(held.task_id, [
      { name: 'input.txt', data: input.content },
      { name: 'data.bin', data: new Uint8Array([0, 1, 2, 255]) },
    ]);
    expect(uploaded.files).toEqual([
      { name: 'input.txt', size: input.content.length },
      { name: 'data.bin', size: 4 },
    ]);
    expect((await client.tasks.release(held.task_id)).status).toBe('queued');
    const types: string[] = [];
    for await (const frame of client.tasks.events(held.task_id)) types.push(frame.type);
    expect(types.at(-1)).toBe('finish');
    expect((await client.tasks.get(held.task_id)).files.sort()).toEqual(['brief.md', 'data.bin', 'input.txt']);

    const result = await client.tasks.run({ brief, files: [input], approvals: { mode: 'auto' } }, { view: 'minimal' });
    expect(result.finish_reason).toBe('completed');
    expect(result.output_text).toBeUndefined();
  });

  it("reports the server's refusals as AgencyErrors with its code, status and details", async () => {
    fixture = await serverFixture();
    const client = clientFor();
    const wrong = await caught(clientFor('not-the-token').server());
    expect(wrong).toMatchObject({ code: 'unauthorized', retryable: false });
    expect(wrong.details).toMatchObject({ status: 401, error: 'unauthorized' });

    const missing = await caught(client.tasks.get('task_01ARZ3NDEKTSV4RRFFQ69G5FAV'));
    expect(missing.code).toBe('task_not_found');
    expect(missing.details).toMatchObject({
      status: 404,
      error: 'not_found',
      task_id: 'task_01ARZ3NDEKTSV4RRFFQ69G5FAV',
    });

    const model = await caught(client.tasks.start({ brief, model: 'openai:not-allowed' }));
    expect(model).toMatchObject({ code: 'invalid_argument' });
    expect(model.details).toMatchObject({ status: 400, error: 'validation_error', field: 'model' });

    const done = await client.tasks.run({ brief, files: [input], approvals: { mode: 'auto' } });
    const resumed = await caught(client.tasks.resume(done.task_id));
    expect(resumed.code).toBe('task_finished');
    expect(resumed.details).toMatchObject({ status: 409, error: 'already_completed', finish_reason: 'completed' });
    const stopped = await caught(client.tasks.stop(done.task_id));
    expect(stopped.code).toBe('task_state_conflict');
    expect(stopped.details).toMatchObject({ status: 409, error: 'conflict' });
    const upload = await caught(client.tasks.upload(done.task_id, [{ name: 'late.txt', data: 'x' }]));
    expect(upload.code).toBe('task_state_conflict');
  });

  it('refuses ids and paths that would reach another route, before sending anything', async () => {
    fixture = await serverFixture();
    const requests: string[] = [];
    const client = clientFor(TOKEN, requests);
    for (const attempt of [
      () => client.tasks.get('../approvals'),
      () => client.tasks.result('task_x/../../agent'),
      () => client.approvals.decide('req_../x', { decision: 'approved' }),
      () => client.tasks.deliverable('task_01ARZ3NDEKTSV4RRFFQ69G5FAV', 'progress/../../server/token'),
    ])
      expect(() => attempt()).toThrow(expect.objectContaining({ code: 'invalid_argument' }));
    expect(requests).toEqual([]);
  });

  it('tells a network failure, an abort and an answer that does not match the API apart', async () => {
    const refused = createClient({
      baseUrl: 'http://127.0.0.1:9',
      fetch: async () => {
        throw new TypeError('fetch failed', { cause: new Error('connect ECONNREFUSED 127.0.0.1:9') });
      },
    });
    const network = await caught(refused.server());
    expect(network).toMatchObject({ code: 'network_failed', retryable: true });
    expect(network.message).toContain('ECONNREFUSED');

    const odd = createClient({
      baseUrl: 'http://127.0.0.1:9',
      fetch: async () => Response.json({ version: 1 }),
    });
    const invalid = await caught(odd.server());
    expect(invalid.code).toBe('response_invalid');
    expect(invalid.message).toContain('version');

    const proxy = createClient({
      baseUrl: 'http://127.0.0.1:9',
      fetch: async () => new Response('<html>Bad gateway</html>', { status: 502 }),
    });
    const gateway = await caught(proxy.server());
    expect(gateway).toMatchObject({ code: 'http_error', retryable: true, details: { status: 502 } });

    const controller = new AbortController();
    controller.abort();
    const aborted = await caught(
      createClient({
        baseUrl: 'http://127.0.0.1:9',
        fetch: async (_url, init) => {
          init.signal?.throwIfAborted();
          return Response.json({});
        },
      }).server({ signal: controller.signal }),
    );
    expect(aborted.code).toBe('aborted');
  });

  it('logs a browser in with its token: the session cookie, and no token afterwards', async () => {
    fixture = await serverFixture();
    const responses: Response[] = [];
    const browser = createClient({
      baseUrl: `http://${HOST}`,
      fetch: async (url, init) => {
        const response = await appFetch()(url, init);
        responses.push(response);
        return response;
      },
    });
    expect((await caught(browser.login('wrong-token-value'))).code).toBe('unauthorized');
    await browser.login(TOKEN);
    expect(responses.at(-1)?.headers.get('set-cookie')).toMatch(/^agency_session=.*HttpOnly.*SameSite=Strict/i);
    expect(await clientFor().session()).toEqual({ principal: 'ana' });
  });
});
