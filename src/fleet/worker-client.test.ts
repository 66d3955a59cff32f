// The worker's client against the real worker (`startWorker`, the scripted executor) for every answer the API
// gives, and against a fake component for the answers a real worker never gives (malformed, a 500 page, silence).
import { afterEach, describe, expect, it } from 'vitest';
import { type FakeComponent, startFakeComponent } from '../../test/support/fake-component.ts';
import { type LiveWorker, startLiveWorker } from '../../test/support/live-worker.ts';
import { rejection } from '../../test/support/rejection.ts';
import { createWorkerClient } from './worker-client.ts';

const started: Array<LiveWorker | FakeComponent> = [];
async function worker(options: Parameters<typeof startLiveWorker>[0] = {}) {
  const live = await startLiveWorker(options);
  started.push(live);
  return live;
}
async function fake() {
  const component = await startFakeComponent();
  started.push(component);
  return component;
}
afterEach(async () => {
  await Promise.all(started.splice(0).map((one) => one.close()));
});

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('worker client', () => {
  it('runs a session through its states: working, idle, continued, ended', async () => {
    const live = await worker({ name: 'w1' });
    const client = createWorkerClient(`${live.url}/`);
    expect(client.url).toBe(live.url);
    const status = await client.status();
    expect([status.name, status.state, status.config.pid]).toEqual(['w1', 'idle', process.pid]);
    const created = await client.submit({ prompt: 'sleep 300' });
    expect(created.task_id).toMatch(/^task-[0-9a-z]{26}$/);
    expect((await client.status()).current_task?.id).toBe(created.task_id);
    expect((await client.tasks()).map((task) => task.task_id)).toEqual([created.task_id]);
    const idle = await until(
      () => client.task(created.task_id),
      (task) => task.state === 'idle',
    );
    expect([idle.output, idle.session_id]).toEqual(['slept 300', created.session_id]);
    expect(await client.continue(created.task_id, 'and then?')).toMatchObject({
      task_id: created.task_id,
      session_id: created.session_id,
    });
    await until(
      () => client.task(created.task_id),
      (task) => task.state === 'idle',
    );
    const ended = await client.end(created.task_id);
    expect([ended.state, ended.output]).toEqual(['completed', 'done: and then?']);
    expect(await client.tasks()).toEqual([]);
    expect((await client.history()).total).toBe(1);
    expect((await client.historyRecord(created.task_id)).state).toBe('completed');
    expect((await client.debug(created.task_id)).stdout).toContain('done: and then?');
  });

  it('turns each error answer into an AgencyError with the wire code, status and retryability', async () => {
    const live = await worker();
    const client = createWorkerClient(live.url);
    const first = await client.submit({ prompt: 'sleep 20000' });
    const busy = await rejection(client.submit({ prompt: 'another' }));
    expect([busy.code, busy.retryable, busy.details?.status, busy.details?.error, busy.details?.current_task]).toEqual([
      'agent_busy',
      true,
      409,
      'agent_busy',
      first.task_id,
    ]);
    expect(busy.message).toBe(`worker ${live.url}: POST /task: Agent is currently processing ${first.task_id}`);
    const invalid = await rejection(client.submit({ prompt: '' }));
    expect([invalid.code, invalid.retryable, invalid.details?.status]).toEqual(['invalid_argument', false, 400]);
    expect(invalid.message).toContain('prompt');
    const missing = await rejection(client.task('task-00000000000000000000000000'));
    expect([missing.code, missing.details?.status]).toEqual(['task_not_found', 404]);
    const running = await rejection(client.shutdown());
    expect([running.code, running.details?.error]).toEqual(['task_active', 'task_in_progress']);
    expect((await client.cancel(first.task_id)).state).toBe('cancelling');
    await until(
      () => client.task(first.task_id),
      (task) => task.state === 'cancelled',
    );
    const done = await rejection(client.cancel(first.task_id));
    expect([done.code, done.details?.final_state]).toEqual(['task_finished', 'cancelled']);
  });

  it('answers 503 worker_unavailable while the worker is starting', async () => {
    const live = await worker({ env: { SCRIPTED_EXECUTOR_CHECK_MS: '60000' }, ready: false });
    const client = createWorkerClient(live.url);
    expect((await client.status()).state).toBe('starting');
    const starting = await rejection(client.submit({ prompt: 'hello' }));
    expect([starting.code, starting.retryable, starting.details?.status]).toEqual(['worker_unavailable', true, 503]);
  });

  it('names a bad answer: malformed JSON, a 500 page, a wrong shape, no answer in time, nobody listening', async () => {
    const component = await fake();
    const client = createWorkerClient(component.url, { timeoutMs: 300 });
    component.setFault('/status', 'malformed');
    const malformed = await rejection(client.status());
    expect([malformed.code, malformed.retryable]).toEqual(['response_invalid', false]);
    expect(malformed.message).toBe(
      `worker ${component.url}: GET /status: the worker's answer does not match the API: malformed JSON: {"state": "idle",`,
    );
    component.setFault('/status', 'error500');
    const page = await rejection(client.status());
    expect([page.code, page.retryable, page.message]).toEqual([
      'http_error',
      true,
      `worker ${component.url}: GET /status: HTTP 500: <h1>oops</h1>`,
    ]);
    component.setFault('/status', 'wrong-shape');
    const shape = await rejection(client.status());
    expect(shape.code).toBe('response_invalid');
    expect(shape.message).toMatch(/the worker's answer does not match the API: type: Invalid option.*; and \d+ more/);
    component.setFault('/status', 'hang');
    const hung = await rejection(client.status());
    expect([hung.code, hung.retryable, hung.message]).toEqual([
      'timeout',
      true,
      `worker ${component.url}: GET /status: no answer within 300 ms`,
    ]);
    await component.close();
    const refused = await rejection(client.status());
    expect([refused.code, refused.retryable]).toEqual(['network_failed', true]);
    expect(refused.message).toMatch(/no answer from the worker: .*ECONNREFUSED/);
  });

  it('refuses an answer over its size limit', async () => {
    const live = await worker();
    const tooLarge = await rejection(createWorkerClient(live.url, { maxBytes: 100 }).status());
    expect([tooLarge.code, tooLarge.message]).toEqual([
      'response_invalid',
      `worker ${live.url}: GET /status: the worker's answer does not match the API: larger than 100 bytes`,
    ]);
  });
});
