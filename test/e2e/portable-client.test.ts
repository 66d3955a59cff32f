// agency/client must run wherever fetch does: a browser, a worker, Deno, Bun. It is bundled with every Node built-in
// refused, and the bundle drives a governed task in a bare V8 context that has only the Web APIs (fetch and its
// classes included), talking to the real server app.
import { runInContext } from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleForWeb, webContext } from '../support/portable-bundle.ts';
import { HOST, type ServerFixture, serverFixture, TOKEN } from '../support/server-fixture.ts';

let code = '';
let fixture: ServerFixture;
beforeAll(async () => {
  ({ code } = await bundleForWeb(`export * from './src/client/index.ts';`, { globalName: 'agencyClient' }));
  fixture = await serverFixture();
});
afterAll(async () => {
  await fixture?.service.close();
});

// The server's fetch, as a page on its origin would have it.
async function fetchToApp(url: string, init: RequestInit): Promise<Response> {
  const headers = new Headers(init.headers);
  headers.set('host', HOST);
  return fixture.app.request(url, { ...init, headers });
}

describe('agency/client in a runtime without Node built-ins', () => {
  it('bundles, and starts, uploads to, follows and reads a governed task through fetch alone', async () => {
    const log: string[] = [];
    const context = webContext(log, { fetch: fetchToApp, Request, Response, Headers, FormData, Blob });
    for (const name of ['process', 'require', 'Buffer', 'global', 'setImmediate'])
      expect(runInContext(`typeof ${name}`, context)).toBe('undefined');
    runInContext(code, context);
    const script = `
      (async () => {
        const { createClient, AgencyError } = agencyClient;
        const client = createClient({ baseUrl: 'http://${HOST}', token: ${JSON.stringify(TOKEN)} });
        const brief = '# Summarise the notes\\n\\nWrite a one-line summary of task/input.txt to artifacts/summary.md.\\n';
        const held = await client.tasks.start({ brief, hold: true, approvals: { mode: 'auto' } });
        await client.tasks.upload(held.task_id, [{ name: 'input.txt', data: new Blob(['Agency runs governed agents.\\n']) }]);
        await client.tasks.release(held.task_id);
        const types = [];
        for await (const frame of client.tasks.events(held.task_id)) types.push(frame.type);
        const result = await client.tasks.result(held.task_id);
        const file = await client.tasks.deliverable(held.task_id, result.deliverables[0].path);
        let refused;
        try { await client.tasks.get('task_01ARZ3NDEKTSV4RRFFQ69G5FAV'); } catch (error) { refused = error; }
        return JSON.stringify({
          first: types[0],
          last: types.at(-1),
          finish: result.finish_reason,
          summary: (await file.text()).trim(),
          refused: { is: AgencyError.isInstance(refused), code: refused.code, status: refused.details.status },
        });
      })()
    `;
    const outcome = JSON.parse(await (runInContext(script, context) as Promise<string>));
    expect(outcome).toEqual({
      first: 'run.started',
      last: 'finish',
      finish: 'completed',
      summary: expect.stringContaining('Agency runs governed agents'),
      refused: { is: true, code: 'task_not_found', status: 404 },
    });
    expect(log).toEqual([]);
  });
});
