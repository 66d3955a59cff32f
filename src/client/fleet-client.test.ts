// The client's fleet methods against the server app (app.request(), no socket) whose fleet polls two workers
// (real agency workers, in this process) over real HTTP: the list, the live feed, a session run, continued and ended, history, and the refusals as an
// AgencyError with the server's code; ids that are not ids are refused before anything is sent.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LiveWorker, startLiveWorker } from '../../test/support/live-worker.ts';
import { type FleetServer, fleetServer } from '../../test/support/fleet-server.ts';
import { rejection } from '../../test/support/rejection.ts';
import { HOST, TOKEN, until } from '../../test/support/server-fixture.ts';
import type { FleetView } from '../api/fleet-schemas.ts';
import { createClient } from './create-client.ts';
import type { FetchFunction } from './transport.ts';

let one: LiveWorker;
let two: LiveWorker;
let server: FleetServer;
const requests: string[] = [];

beforeAll(async () => {
  [one, two] = await Promise.all([startLiveWorker({ name: 'one' }), startLiveWorker({ name: 'two' })]);
  server = await fleetServer({ urls: [one.url, two.url] });
  await server.until((fleet) => fleet.components.filter((item) => item.state === 'idle').length === 2);
}, 30_000);

afterAll(async () => {
  await server?.close();
  await Promise.all([one?.close(), two?.close()]);
});

const appFetch: FetchFunction = async (url, init) => {
  requests.push(`${init.method} ${url.replace(`http://${HOST}`, '')}`);
  const headers = new Headers(init.headers);
  headers.set('host', HOST);
  return server.app.request(url, { ...init, headers });
};
const client = (token = TOKEN) => createClient({ baseUrl: `http://${HOST}/`, token, fetch: appFetch });

describe('client.fleet', () => {
  it('lists the fleet and one component, with health and config', async () => {
    const fleet = await client().fleet.list();
    expect(fleet.components.map((item) => [item.name, item.health, item.taskable]).sort()).toEqual([
      ['one', 'green', true],
      ['two', 'green', true],
    ]);
    const one = await client().fleet.component('one');
    expect(one).toMatchObject({ name: 'one', state: 'idle' });
    expect(one.log.map((line) => line.message)).toContain('ready: executor claude scripted 1.0');
  });

  it('runs a session: submit, follow, continue, end; then a page of history and the record', async () => {
    const fleet = client().fleet;
    const created = await fleet.submit('one', { prompt: 'first', timeout_seconds: 30 });
    expect(created).toMatchObject({ worker: 'one', status: expect.any(String) });
    const idle = () =>
      until(async () => {
        const task = await fleet.task('one', created.task_id);
        return task.state === 'idle' ? task : undefined;
      });
    expect(await idle()).toMatchObject({ output: 'done: first', prompt: 'first', turns: 1 });
    expect(await fleet.continue('one', created.task_id, 'second')).toMatchObject({ task_id: created.task_id });
    expect(await idle()).toMatchObject({ output: 'done: second', turns: 2 });
    expect(await fleet.end('one', created.task_id)).toEqual({
      task_id: created.task_id,
      state: 'completed',
      output: 'done: second',
    });
    const page = await fleet.history('one', { page: 1, limit: 1 });
    expect(page).toMatchObject({ page: 1, limit: 1, items: [{ task_id: created.task_id, state: 'completed' }] });
    expect(requests).toContain('GET /agent/fleet/workers/one/history?page=1&limit=1');
    expect(await fleet.historyRecord('one', created.task_id)).toMatchObject({
      prompt: expect.stringContaining('first'),
      stdout: expect.stringContaining('done: first'),
    });
  });

  it('watches the fleet: a snapshot at once, then the change a task makes', async () => {
    const controller = new AbortController();
    const seen: FleetView[] = [];
    let id = '';
    const watching = (async () => {
      for await (const fleet of client().fleet.watch({ signal: controller.signal })) {
        seen.push(fleet);
        if (seen.length === 1) id = (await client().fleet.submit('two', { prompt: 'sleep 300' })).task_id;
        if (fleet.components.some((item) => item.name === 'two' && item.current_task?.id === id)) return;
      }
    })();
    await watching;
    controller.abort();
    expect(seen[0]!.components).toHaveLength(2);
    expect(seen.at(-1)!.components.find((item) => item.name === 'two')).toMatchObject({ state: 'working' });
    await client().fleet.cancel('two', id);
  });

  it('throws the server’s refusals as AgencyErrors: busy, unknown worker, bad token, bad ids', async () => {
    await server.until((fleet) => fleet.components.find((item) => item.name === 'two')?.state === 'idle');
    const { task_id: id } = await client().fleet.submit('two', { prompt: 'sleep 2000' });
    const busy = await rejection(client().fleet.submit('two', { prompt: 'another' }));
    expect([busy.code, busy.details?.current_task]).toEqual(['agent_busy', id]);
    await client().fleet.cancel('two', id);
    expect((await rejection(client().fleet.submit('nobody', { prompt: 'x' }))).code).toBe('no_worker');
    expect((await rejection(client(`${TOKEN}x`).fleet.list())).code).toBe('unauthorized');
    const sent = requests.length;
    for (const attempt of [
      () => client().fleet.task('one', '../../status'),
      () => client().fleet.history('a/b'),
      () => client().fleet.submit('../status', { prompt: 'x' }),
    ])
      expect(() => attempt()).toThrow(expect.objectContaining({ code: 'invalid_argument' }));
    expect(requests.length).toBe(sent);
  });
});
