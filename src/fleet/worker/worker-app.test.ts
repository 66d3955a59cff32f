import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { gateExecutor, until, workerKit } from '../../../test/support/worker-kit.ts';

type Task = { task_id: string; session_id: string; state: string; [key: string]: unknown };
const TASK_ID = /^task-[0-9a-z]{26}$/;

describe('the worker API: tasks', () => {
  it('runs a task: 201, working with its current task in /status, then idle with its output and usage', async () => {
    const kit = await workerKit({ config: { env: { FROM_CONFIG: 'c' } } });
    const created = await kit.json('/task', {
      json: {
        prompt: 'Fix the authentication bug',
        model: 'opus',
        project: { name: 'myapp', prompt: 'Work in the myapp repository' },
        env: { GIT_AUTHOR_NAME: 'Agent' },
      },
    });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      task_id: expect.stringMatching(TASK_ID),
      session_id: expect.any(String),
      status: 'working',
    });
    const { task_id: id, session_id: session } = created.body as Task;
    const run = await kit.gate.next();
    expect(run.request).toMatchObject({
      taskId: id,
      sessionId: session,
      resume: false,
      model: 'opus',
      workdir: join(kit.config.sessionDir, session),
      timeoutMs: 1_800_000,
      env: {
        PATH: '/usr/bin:/bin',
        HOME: join(kit.config.instanceDir, 'home'),
        FROM_CONFIG: 'c',
        GIT_AUTHOR_NAME: 'Agent',
      },
    });
    expect(run.request.env).not.toHaveProperty('SECRET_OF_THE_WORKER');
    expect(run.request.prompt).toBe(
      '# Instructions\n\nINSTRUCTIONS\n\n# Project: myapp\n\nWork in the myapp repository\n\n# Task\n\nFix the authentication bug',
    );
    expect(existsSync(run.request.workdir)).toBe(true);

    const status = (await kit.json('/status')).body as { state: string; current_task: unknown; config: unknown };
    expect(status.state).toBe('working');
    expect(status.current_task).toEqual({
      id,
      started_at: expect.any(String),
      prompt_preview: 'Fix the authentication bug',
    });
    expect((await kit.json(`/task/${id}`)).body).toMatchObject({ state: 'working', exit_code: null, output: null });

    run.request.onEvent({ type: 'tool.call', tool: 'Bash', input: { command: 'npm test' } });
    run.finish({ output: 'Fixed it', usage: { input: 150, output: 85 }, costUsd: 0.02 });
    const done = await until(async () => {
      const task = (await kit.json(`/task/${id}`)).body as Task;
      return task.state === 'idle' ? task : undefined;
    });
    expect(done).toMatchObject({
      executor: 'claude',
      exit_code: 0,
      output: 'Fixed it',
      error: null,
      token_usage: { input: 150, output: 85 },
      cost_usd: 0.02,
      turns: 1,
      completed_at: null,
    });
    expect(((await kit.json('/status')).body as { state: string }).state).toBe('idle');
    const record = (await kit.json(`/history/${id}`)).body as { log: Array<{ message: string }>; stdout: string };
    expect(record.log.map((line) => line.message)).toEqual([
      'turn 1: Fix the authentication bug',
      'tool Bash: {"command":"npm test"}',
    ]);
    expect(record.stdout).toBe('raw out\n');
  });

  it('takes one task at a time: a second gets 409 agent_busy naming the current one, retryable', async () => {
    const kit = await workerKit();
    const first = (await kit.json('/task', { json: { prompt: 'one' } })).body as Task;
    const second = await kit.json('/task', { json: { prompt: 'two' } });
    expect(second).toEqual({
      status: 409,
      body: {
        error: 'agent_busy',
        message: `Agent is currently processing ${first.task_id}`,
        current_task: first.task_id,
        details: { current_task: first.task_id, agency_code: 'agent_busy', retryable: true },
      },
    });
    (await kit.gate.next()).finish();
    await until(async () => ((await kit.json('/status')).body.state === 'idle' ? true : undefined));
    expect((await kit.json('/task', { json: { prompt: 'two' } })).status).toBe(201);
  });

  it('answers 503 service_unavailable while starting, and takes tasks once ready', async () => {
    const kit = await workerKit({ ready: false });
    expect(((await kit.json('/status')).body as { state: string }).state).toBe('starting');
    const refused = await kit.json('/task', { json: { prompt: 'too early' } });
    expect(refused.status).toBe(503);
    expect(refused.body).toMatchObject({
      error: 'service_unavailable',
      details: { retryable: true, state: 'starting' },
    });
    expect((await kit.json('/history')).status).toBe(503);
    await kit.worker.recover();
    kit.worker.ready(kit.gate.executor);
    expect(((await kit.json('/status')).body as { state: string }).state).toBe('idle');
    expect((await kit.json('/task', { json: { prompt: 'now' } })).status).toBe(201);
  });

  it('fails a task with the error its executor classified, its exit code and raw output kept', async () => {
    const kit = await workerKit();
    const { task_id: id } = (await kit.json('/task', { json: { prompt: 'hit the limit' } })).body as Task;
    (await kit.gate.next()).finish({
      exitCode: 1,
      output: '',
      stderr: 'Error: rate limit exceeded\n',
      error: { type: 'rate_limit', message: 'The provider is rate limiting' },
    });
    const task = await until(async () => {
      const body = (await kit.json(`/task/${id}`)).body as Task;
      return body.state === 'failed' ? body : undefined;
    });
    expect(task).toMatchObject({
      exit_code: 1,
      error: { type: 'rate_limit', message: 'The provider is rate limiting' },
    });
    expect(task.completed_at).toEqual(expect.any(String));
    expect(((await kit.json(`/task/${id}/debug`)).body as { stderr: string }).stderr).toBe(
      'Error: rate limit exceeded\n',
    );
  });

  it('fails a task whose executor throws with error type internal, and takes the next one', async () => {
    const kit = await workerKit();
    const { task_id: id } = (await kit.json('/task', { json: { prompt: 'boom' } })).body as Task;
    (await kit.gate.next()).fail(new Error('spawn ENOENT'));
    await until(async () => ((await kit.json(`/task/${id}`)).body.state === 'failed' ? true : undefined));
    expect((await kit.json(`/task/${id}`)).body).toMatchObject({
      error: { type: 'internal', message: 'spawn ENOENT' },
    });
    expect((await kit.json('/task', { json: { prompt: 'next' } })).status).toBe(201);
  });

  it("takes usage from the executor's events when its result has none, and logs its tool calls and warnings", async () => {
    const kit = await workerKit();
    const { task_id: id } = (await kit.json('/task', { json: { prompt: 'stream' } })).body as Task;
    const run = await kit.gate.next();
    run.request.onEvent({ type: 'started', message: 'claude started', pid: 4242 });
    run.request.onEvent({ type: 'usage', input: 10, output: 1 });
    run.request.onEvent({ type: 'usage', input: 70, output: 9, costUsd: 0.5 });
    run.request.onEvent({ type: 'tool.result', tool: 'Edit', ok: false });
    run.request.onEvent({ type: 'warning', message: 'retrying after a 529' });
    run.finish({ output: 'ok' });
    await until(async () => ((await kit.json(`/task/${id}`)).body.state === 'idle' ? true : undefined));
    expect((await kit.json(`/task/${id}`)).body).toMatchObject({
      token_usage: { input: 70, output: 9 },
      cost_usd: 0.5,
    });
    const record = (await kit.json(`/history/${id}`)).body as { log: Array<{ level: string; message: string }> };
    expect(record.log.slice(1)).toEqual([
      { time: expect.any(String), level: 'info', message: 'claude started (pid 4242)' },
      { time: expect.any(String), level: 'warn', message: 'tool Edit failed' },
      { time: expect.any(String), level: 'warn', message: 'retrying after a 529' },
    ]);
    // The worker's lifecycle lines name the task in each, so a director following it can show the latest one.
    const lifecycle = kit.lifecycle.recent().map((line) => [line.level, line.message]);
    expect(lifecycle).toEqual([
      ['info', `task ${id} turn 1 started`],
      ['info', `task ${id}: claude started (pid 4242)`],
      ['warn', `task ${id}: tool Edit failed`],
      ['warn', `task ${id}: retrying after a 529`],
      ['info', `task ${id} turn 1 done; idle, waiting for continue or end`],
    ]);
  });

  it('answers 404 for an unknown task and 400 for a malformed id', async () => {
    const kit = await workerKit();
    expect(await kit.json('/task/task-0123456789abcdefghjkmnpqrs')).toEqual({
      status: 404,
      body: {
        error: 'not_found',
        message: 'Task task-0123456789abcdefghjkmnpqrs not found',
        task_id: 'task-0123456789abcdefghjkmnpqrs',
        details: { task_id: 'task-0123456789abcdefghjkmnpqrs', agency_code: 'task_not_found', retryable: false },
      },
    });
    const bad = await kit.json('/task/..%2F..%2Fetc%2Fpasswd');
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ error: 'validation_error', details: { field: 'path.id' } });
  });
});

describe('the worker API: cancel and timeout', () => {
  it('cancels: cancelling at once, then cancelled with the partial output; a second cancel is 409 already_completed', async () => {
    const kit = await workerKit();
    const { task_id: id } = (await kit.json('/task', { json: { prompt: 'long job' } })).body as Task;
    const run = await kit.gate.next();
    const cancel = await kit.json(`/task/${id}/cancel`, { method: 'POST' });
    expect(cancel).toEqual({
      status: 200,
      body: {
        task_id: id,
        state: 'cancelling',
        message: 'Task cancellation initiated: SIGTERM to the executor now, SIGKILL after 10 s',
      },
    });
    expect(run.request.signal.aborted).toBe(true);
    const task = await until(async () => {
      const body = (await kit.json(`/task/${id}`)).body as Task;
      return body.state === 'cancelled' ? body : undefined;
    });
    expect(task).toMatchObject({
      output: 'partial',
      exit_code: 143,
      error: { type: 'cancelled', message: 'Cancelled by request' },
    });
    expect(await kit.json(`/task/${id}/cancel`, { method: 'POST' })).toEqual({
      status: 409,
      body: {
        error: 'already_completed',
        message: `Task ${id} has already completed`,
        task_id: id,
        final_state: 'cancelled',
        details: { task_id: id, final_state: 'cancelled', agency_code: 'task_finished', retryable: false },
      },
    });
  });

  it('fails a task past its timeout with error type timeout, its executor stopped', async () => {
    const kit = await workerKit();
    const { task_id: id } = (await kit.json('/task', { json: { prompt: 'forever', timeout_seconds: 1 } })).body as Task;
    const run = await kit.gate.next();
    expect(run.request.timeoutMs).toBe(1_000);
    const task = await until(async () => {
      const body = (await kit.json(`/task/${id}`)).body as Task;
      return body.state === 'failed' ? body : undefined;
    });
    expect(run.request.signal.aborted).toBe(true);
    expect(task).toMatchObject({
      output: 'partial',
      error: { type: 'timeout', message: 'Task exceeded timeout of 1 seconds' },
    });
  });

  it('moves on from an executor that ignores its stop signal, after the grace period', async () => {
    const gate = gateExecutor({ ignoreAbort: true });
    const kit = await workerKit({ gate, stopGraceMs: 100 });
    const { task_id: id } = (await kit.json('/task', { json: { prompt: 'stubborn' } })).body as Task;
    const run = await gate.next();
    run.request.onEvent({ type: 'text', text: 'half an answer' });
    await kit.json(`/task/${id}/cancel`, { method: 'POST' });
    const task = await until(async () => {
      const body = (await kit.json(`/task/${id}`)).body as Task;
      return body.state === 'cancelled' ? body : undefined;
    });
    expect(task.output).toBe('half an answer');
    expect(((await kit.json('/status')).body as { state: string }).state).toBe('idle');
  });
});

describe('the worker API: sessions', () => {
  it('continues an idle session in the same directory with resume, twice, then ends it', async () => {
    const kit = await workerKit();
    const { task_id: id, session_id: session } = (await kit.json('/task', { json: { prompt: 'start' } })).body as Task;
    const first = await kit.gate.next();
    await writeFile(join(first.request.workdir, 'notes.txt'), 'kept between turns');
    first.finish({ output: 'turn one', usage: { input: 10, output: 5 } });
    await until(async () => ((await kit.json(`/task/${id}`)).body.state === 'idle' ? true : undefined));

    for (const [turn, prompt] of [
      [2, 'go on'],
      [3, 'and finish'],
    ] as const) {
      const continued = await kit.json(`/task/${id}/continue`, { json: { prompt } });
      expect(continued).toEqual({ status: 200, body: { task_id: id, session_id: session, state: 'working' } });
      const run = await kit.gate.next();
      expect(run.request).toMatchObject({ resume: true, prompt, sessionId: session, workdir: first.request.workdir });
      expect(await readFile(join(run.request.workdir, 'notes.txt'), 'utf8')).toBe('kept between turns');
      expect((await kit.json(`/task/${id}/end`, { method: 'POST' })).body).toMatchObject({ error: 'task_in_progress' });
      run.finish({ output: `turn ${turn}`, usage: { input: 10, output: 5 } });
      await until(async () => ((await kit.json(`/task/${id}`)).body.state === 'idle' ? true : undefined));
    }
    expect((await kit.json(`/task/${id}`)).body).toMatchObject({ turns: 3, token_usage: { input: 30, output: 15 } });
    expect(await kit.json(`/task/${id}/end`, { method: 'POST' })).toEqual({
      status: 200,
      body: { task_id: id, state: 'completed', output: 'turn 3' },
    });
    expect((await kit.json(`/task/${id}/continue`, { json: { prompt: 'more' } })).body).toMatchObject({
      error: 'already_completed',
      final_state: 'completed',
    });
    expect((await kit.json('/tasks')).body).toEqual({ items: [] });
  });

  it('refuses to continue while another task runs (agent_busy), and cancels an idle session at once', async () => {
    const kit = await workerKit();
    const idle = (await kit.json('/task', { json: { prompt: 'first' } })).body as Task;
    (await kit.gate.next()).finish();
    await until(async () => ((await kit.json(`/task/${idle.task_id}`)).body.state === 'idle' ? true : undefined));
    const busy = (await kit.json('/task', { json: { prompt: 'second' } })).body as Task;
    expect((await kit.json(`/task/${idle.task_id}/continue`, { json: { prompt: 'x' } })).body).toMatchObject({
      error: 'agent_busy',
      current_task: busy.task_id,
    });
    const tasks = (await kit.json('/tasks')).body as { items: Task[] };
    expect(tasks.items.map((task) => [task.task_id, task.state])).toEqual([
      [busy.task_id, 'working'],
      [idle.task_id, 'idle'],
    ]);
    expect(await kit.json(`/task/${idle.task_id}/cancel`, { method: 'POST' })).toEqual({
      status: 200,
      body: { task_id: idle.task_id, state: 'cancelled', message: 'Task cancelled' },
    });
  });

  it('resumes a session by session_id in a new task; a new session starts in a fresh directory', async () => {
    const kit = await workerKit();
    const first = (await kit.json('/task', { json: { prompt: 'make a file' } })).body as Task;
    const run = await kit.gate.next();
    await writeFile(join(run.request.workdir, 'made.txt'), 'x');
    run.finish();
    await until(async () => ((await kit.json(`/task/${first.task_id}`)).body.state === 'idle' ? true : undefined));
    await kit.json(`/task/${first.task_id}/end`, { method: 'POST' });

    const again = (await kit.json('/task', { json: { prompt: 'use it', session_id: first.session_id } })).body as Task;
    expect(again.session_id).toBe(first.session_id);
    const resumed = await kit.gate.next();
    expect(resumed.request.resume).toBe(true);
    expect(existsSync(join(resumed.request.workdir, 'made.txt'))).toBe(true);
    resumed.finish();
    await until(async () => ((await kit.json(`/task/${again.task_id}`)).body.state === 'idle' ? true : undefined));

    const unknown = '0b6f3a52-3c55-4b8e-9a8e-5c4f6c1d2e3f';
    await kit.json('/task', { json: { prompt: 'new', session_id: unknown } });
    expect((await kit.gate.next()).request).toMatchObject({ resume: false, sessionId: unknown });
  });
});
