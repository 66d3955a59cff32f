import { afterEach, describe, expect, it } from 'vitest';
import { type FakeWorker, startFakeWorker } from '../../test/support/fake-worker.ts';
import { createWorkerClient } from './worker-client.ts';
import { rejection } from '../../test/support/rejection.ts';

const workers: FakeWorker[] = [];
async function worker(options: Parameters<typeof startFakeWorker>[0] = {}) {
  const started = await startFakeWorker(options);
  workers.push(started);
  return started;
}
afterEach(async () => {
  for (const started of workers.splice(0)) {
    expect(started.contractBreaks).toEqual([]);
    await started.close();
  }
});

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe('worker client', () => {
  it('runs a session through its states: queued, working, idle, continued, ended', async () => {
    const fake = await worker({ name: 'w1' });
    const client = createWorkerClient(`${fake.url}/`);
    expect(client.url).toBe(fake.url);
    expect((await client.status()).state).toBe('idle');
    const created = await client.submit({ prompt: 'sleep 30' });
    expect(created.status).toBe('queued');
    expect((await client.status()).current_task?.id).toBe(created.task_id);
    const idle = await until(
      () => client.task(created.task_id),
      (task) => task.state === 'idle',
    );
    expect([idle.output, idle.turns, idle.session_id]).toEqual(['echo: sleep 30', 1, created.session_id]);
    expect(await client.continue(created.task_id, 'and then?')).toMatchObject({ state: 'working' });
    await until(
      () => client.task(created.task_id),
      (task) => task.state === 'idle',
    );
    const ended = await client.end(created.task_id);
    expect([ended.state, ended.output]).toEqual(['completed', 'echo: and then?']);
    expect((await client.tasks()).map((task) => [task.task_id, task.state])).toEqual([[created.task_id, 'completed']]);
    expect((await client.history()).total).toBe(1);
    expect((await client.debug(created.task_id)).stdout).toContain('echo: and then?');
  });

  it('turns each error answer into an AgencyError with the wire code, status and retryability', async () => {
    const fake = await worker();
    const client = createWorkerClient(fake.url);
    const first = await client.submit({ prompt: 'sleep 5000' });
    const busy = await rejection(client.submit({ prompt: 'another' }));
    expect([busy.code, busy.retryable, busy.details?.status, busy.details?.error, busy.details?.current_task]).toEqual([
      'agent_busy',
      true,
      409,
      'agent_busy',
      first.task_id,
    ]);
    expect(busy.message).toBe(`worker ${fake.url}: POST /task: Agent is currently processing ${first.task_id}`);
    const invalid = await rejection(client.submit({ prompt: '' }));
    expect([invalid.code, invalid.retryable, invalid.details?.status]).toEqual(['invalid_argument', false, 400]);
    expect(invalid.message).toContain('prompt:');
    const missing = await rejection(client.task('task-00000000000000000000000000'));
    expect([missing.code, missing.details?.status]).toEqual(['task_not_found', 404]);
    const running = await rejection(client.shutdown());
    expect([running.code, running.retryable, running.details?.error]).toEqual([
      'task_active',
      true,
      'task_in_progress',
    ]);
    expect((await client.cancel(first.task_id)).state).toBe('cancelling');
    await until(
      () => client.task(first.task_id),
      (task) => task.state === 'cancelled',
    );
    const done = await rejection(client.cancel(first.task_id));
    expect([done.code, done.details?.final_state]).toEqual(['task_finished', 'cancelled']);
  });

  it('answers 503 while the worker is starting', async () => {
    const fake = await worker({ startingMs: 60_000 });
    const client = createWorkerClient(fake.url);
    expect((await client.status()).state).toBe('starting');
    const starting = await rejection(client.submit({ prompt: 'hello' }));
    expect([starting.code, starting.retryable, starting.details?.status]).toEqual(['http_error', true, 503]);
  });

  it('names a bad answer: malformed JSON, a 500 page, a wrong shape, no answer in time, nobody listening', async () => {
    const fake = await worker();
    const client = createWorkerClient(fake.url, { timeoutMs: 300 });
    fake.setFault('/status', 'malformed');
    const malformed = await rejection(client.status());
    expect([malformed.code, malformed.retryable]).toEqual(['response_invalid', false]);
    expect(malformed.message).toBe(
      `worker ${fake.url}: GET /status: the answer is not the worker API: malformed JSON: {"state": "idle",`,
    );
    fake.setFault('/status', 'error500');
    const page = await rejection(client.status());
    expect([page.code, page.retryable, page.message]).toEqual([
      'http_error',
      true,
      `worker ${fake.url}: GET /status: HTTP 500: <h1>oops</h1>`,
    ]);
    fake.setFault('/status', 'wrong-shape');
    const shape = await rejection(client.status());
    expect(shape.code).toBe('response_invalid');
    expect(shape.message).toMatch(/the answer is not the worker API: type: Invalid option.*; and \d+ more/);
    fake.setFault('/status', 'hang');
    const hung = await rejection(client.status());
    expect([hung.code, hung.retryable, hung.message]).toEqual([
      'timeout',
      true,
      `worker ${fake.url}: GET /status: no answer within 300 ms`,
    ]);
    await fake.close();
    const refused = await rejection(client.status());
    expect([refused.code, refused.retryable]).toEqual(['network_failed', true]);
    expect(refused.message).toMatch(/no answer: .*ECONNREFUSED/);
  });

  it('refuses an answer over its size limit', async () => {
    const fake = await worker();
    const tooLarge = await rejection(createWorkerClient(fake.url, { maxBytes: 100 }).status());
    expect([tooLarge.code, tooLarge.message]).toEqual([
      'response_invalid',
      `worker ${fake.url}: GET /status: the answer is not the worker API: larger than 100 bytes`,
    ]);
  });
});
