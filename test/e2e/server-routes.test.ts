// The HTTP API through app.request(): a governed task started, followed, approved and finished over HTTP, leaving
// the same paper trail as a CLI run.
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { inboxSchema, taskActionSchema, taskDetailSchema, taskResultSchema } from '../../src/api/schemas.ts';
import { eventFrameSchema } from '../../src/task/contracts/events.ts';
import { createRunner, type Runner } from '../../src/task/runner.ts';
import { fixtureTools, phaseModel } from '../support/governed-fixture.ts';
import { type ServerFixture, serverFixture, until } from '../support/server-fixture.ts';

let fixture: ServerFixture;
afterEach(async () => {
  await fixture?.service.close();
});

const brief = '# Summarise the notes\n\nWrite a one-line summary of task/input.txt to artifacts/summary.md.\n';
const input = { name: 'input.txt', content: 'Agency runs governed agents. They plan, ask, act and verify.\n' };

async function startTask(extra: Record<string, unknown> = {}) {
  const response = await fixture.api('/agent/tasks/do/async', {
    method: 'POST',
    json: { brief, files: [input], ...extra },
  });
  expect(response.status).toBe(202);
  return taskActionSchema.parse(await response.json());
}

async function pendingPlan(id: string) {
  return until(async () => {
    const inbox = inboxSchema.parse(await (await fixture.api('/agent/approvals')).json());
    return inbox.items.find((item) => item.task_id === id && item.request.type === 'plan');
  });
}

describe('a governed task over HTTP', () => {
  it('starts, waits for its plan approval in the inbox, is approved, finishes, and delivers', async () => {
    fixture = await serverFixture();
    const started = await startTask();
    expect(started.task_id).toMatch(/^task_/);
    const item = await pendingPlan(started.task_id);
    expect(item.plan?.allowed_tools).toEqual(['write_artifact']);
    expect(item.state).toBe('pending');
    const listed = await (await fixture.api('/agent/tasks?status=waiting_approval')).json();
    expect(listed.items.map((task: { id: string }) => task.id)).toContain(started.task_id);
    expect(listed.items[0].stuck).toBe('waiting_approval');

    const decided = await fixture.api(`/agent/approvals/${item.request.id}/decision`, {
      method: 'POST',
      json: { decision: 'approved', reason: 'looks right' },
    });
    expect(decided.status).toBe(200);
    expect(await decided.json()).toMatchObject({ decision: 'approved', approved_by: 'ana', reason: 'looks right' });

    await fixture.service.summary(started.task_id);
    const result = await until(async () => {
      const response = await fixture.api(`/agent/tasks/${started.task_id}/result?view=full`);
      return response.status === 200 ? taskResultSchema.parse(await response.json()) : undefined;
    });
    expect(result).toMatchObject({ finish_reason: 'completed', verified: true });
    expect(result.deliverables?.map((file) => file.path)).toEqual(['progress/artifacts/summary.md']);
    expect(result.steps?.length).toBeGreaterThan(3);

    const detail = taskDetailSchema.parse(await (await fixture.api(`/agent/tasks/${started.task_id}`)).json());
    expect(detail).toMatchObject({ status: 'completed', model: 'test:phase-model', pending_approvals: 0 });
    expect(detail.plans).toHaveLength(1);
    expect(detail.plans[0]?.approved).toBe(true);
    expect(detail.approvals[0]).toMatchObject({ state: 'decided', decision: { approved_by: 'ana' } });
    expect(detail.files).toEqual(['brief.md', 'input.txt']);

    const file = await fixture.api(`/agent/tasks/${started.task_id}/deliverables/progress/artifacts/summary.md`);
    expect(file.status).toBe(200);
    expect(file.headers.get('content-disposition')).toBe('attachment; filename="summary.md"');
    expect(file.headers.get('content-security-policy')).toContain('sandbox');
    expect(await file.text()).toContain('Agency runs governed agents');

    // The same paper trail as a CLI run: task/, progress/ with the journal, state, plan, approvals, verify, steps.
    const taskRoot = join(fixture.root.tasks, started.task_id);
    expect((await readdir(join(taskRoot, 'progress'))).sort()).toEqual(
      expect.arrayContaining([
        'approvals',
        'artifacts',
        'events.ndjson',
        'plan',
        'spec.json',
        'state.json',
        'steps',
        'verify',
      ]),
    );
    const spec = JSON.parse(await readFile(join(taskRoot, 'progress', 'spec.json'), 'utf8'));
    expect(spec.task_id).toBe(started.task_id);

    // The events replay whole as NDJSON, each a valid frame, and end with the finish.
    const events = await fixture.api(`/agent/tasks/${started.task_id}/events`);
    expect(events.headers.get('content-type')).toContain('application/x-ndjson');
    const frames = (await events.text())
      .split('\n')
      .filter(Boolean)
      .map((line) => eventFrameSchema.parse(JSON.parse(line)));
    expect(frames.map((frame) => frame.seq)).toEqual(frames.map((_, index) => index + 1));
    expect(frames.at(-1)?.type).toBe('finish');

    // SSE from a seq on: ids are seqs, and the stream says when it ends.
    const sse = await fixture.api(`/agent/tasks/${started.task_id}/events`, {
      headers: { accept: 'text/event-stream', 'last-event-id': String(frames.length - 2) },
    });
    const text = await sse.text();
    expect([...text.matchAll(/^id: (\d+)$/gm)].map((match) => Number(match[1]))).toEqual([
      frames.length - 1,
      frames.length,
    ]);
    expect(text.trimEnd().endsWith('event: end\ndata: {}')).toBe(true);
  });

  it('runs a task synchronously with do, and answers in the view asked for', async () => {
    fixture = await serverFixture();
    const response = await fixture.api('/agent/tasks/do?view=minimal', {
      method: 'POST',
      json: { brief, files: [input], approvals: { mode: 'auto' } },
    });
    expect(response.status).toBe(200);
    const result = taskResultSchema.parse(await response.json());
    expect(result.finish_reason).toBe('completed');
    expect(result.output_text).toBeUndefined();
  });

  it('holds a task for uploads, then starts it; uploads after the start are refused', async () => {
    fixture = await serverFixture();
    const held = await startTask({ hold: true, files: [], approvals: { mode: 'auto' } });
    expect(held.status).toBe('created');
    const form = new FormData();
    form.append('files', new Blob([input.content]), 'input.txt');
    const uploaded = await fixture.api(`/agent/tasks/${held.task_id}/upload`, { method: 'POST', body: form });
    expect(uploaded.status).toBe(200);
    expect(await uploaded.json()).toEqual({
      task_id: held.task_id,
      files: [{ name: 'input.txt', size: input.content.length }],
    });
    const start = await fixture.api(`/agent/tasks/${held.task_id}/start`, { method: 'POST' });
    expect(start.status).toBe(200);
    await until(async () => ((await fixture.service.summary(held.task_id)).status === 'completed' ? true : undefined));
    const late = await fixture.api(`/agent/tasks/${held.task_id}/upload`, { method: 'POST', body: form });
    expect(late.status).toBe(409);
  });

  it('stops a run waiting for approval, and resumes it', async () => {
    // Runs that take a moment to close after their state says how they ended, as on a busy machine.
    const runnerFor = async () => {
      const runner = createRunner({ model: phaseModel(), tools: (paths) => fixtureTools(paths) });
      const run: Runner['run'] = async (handle, options) => {
        const result = await runner.run(handle, options);
        await delay(300);
        return result;
      };
      return { ...runner, run };
    };
    fixture = await serverFixture({ service: { runnerFor } });
    const started = await startTask();
    const item = await pendingPlan(started.task_id);
    const stop = await fixture.api(`/agent/tasks/${started.task_id}/stop`, { method: 'POST', json: {} });
    expect(stop.status).toBe(200);
    // Shown stopped once the run has closed, not before: a resume is then accepted at once.
    await until(async () => ((await fixture.service.summary(started.task_id)).status === 'stopped' ? true : undefined));
    expect((await fixture.service.summary(started.task_id)).finish_reason).toBe('stopped');
    const resume = await fixture.api(`/agent/tasks/${started.task_id}/resume`, { method: 'POST', json: {} });
    expect(resume.status).toBe(200);
    // The same request is asked again after the resume; approving it lets the run finish.
    const again = await pendingPlan(started.task_id);
    expect(again.request.id).toBe(item.request.id);
    const decided = await fixture.api(`/agent/approvals/${again.request.id}/decision`, {
      method: 'POST',
      json: { decision: 'approved' },
    });
    expect(decided.status).toBe(200);
    await until(async () =>
      (await fixture.service.summary(started.task_id)).status === 'completed' ? true : undefined,
    );
    const again2 = await fixture.api(`/agent/tasks/${started.task_id}/resume`, { method: 'POST', json: {} });
    expect(again2.status).toBe(409);
    expect((await again2.json()).error).toBe('already_completed');
  });
});

describe('the OpenAPI document', () => {
  it('lists every route the app serves, with its parameters and responses', async () => {
    fixture = await serverFixture();
    const doc = await (await fixture.api('/openapi.json')).json();
    expect(doc.openapi).toBe('3.1.0');
    const documented = Object.entries(doc.paths as Record<string, Record<string, unknown>>)
      .flatMap(([path, methods]) => Object.keys(methods).map((method) => `${method.toUpperCase()} ${path}`))
      .sort();
    const served = fixture.app.routes
      .filter((route) => route.method !== 'ALL' && !['*', '/*', '/openapi.json'].includes(route.path))
      .map((route) => `${route.method} ${route.path.replace(/:path\{\.\+\}/, '{path}').replace(/:(\w+)/g, '{$1}')}`);
    expect([...new Set(served)].sort()).toEqual(documented);
    const decision = doc.paths['/agent/approvals/{id}/decision'].post;
    expect(decision.requestBody.content['application/json'].schema.properties.decision.enum).toEqual([
      'approved',
      'denied',
    ]);
    expect(Object.keys(decision.responses).sort()).toEqual(['200', '400', '401', '403', '404', '409']);
    expect(doc.paths['/auth/login'].post.security).toEqual([]);
  });
});

describe('many runs in one process', () => {
  it('runs at most the configured number at once, and queues the rest in order', async () => {
    fixture = await serverFixture({ service: { maxConcurrentRuns: 2 } });
    const ids: string[] = [];
    for (let index = 0; index < 4; index++) ids.push((await startTask()).task_id);
    // Each waits for its plan's approval, so the first two hold their slots.
    await pendingPlan(ids[0]!);
    await pendingPlan(ids[1]!);
    const statuses = async () => Promise.all(ids.map(async (id) => (await fixture.service.summary(id)).status));
    expect(await statuses()).toEqual(['waiting_approval', 'waiting_approval', 'queued', 'queued']);
    const queued = await (await fixture.api('/agent/tasks?status=queued')).json();
    expect(queued.items.map((task: { id: string }) => task.id).sort()).toEqual([ids[2], ids[3]].sort());
    // Stopping one frees its slot for the next in line.
    await fixture.api(`/agent/tasks/${ids[0]}/stop`, { method: 'POST', json: {} });
    await pendingPlan(ids[2]!);
    expect(await statuses()).toEqual(['stopped', 'waiting_approval', 'waiting_approval', 'queued']);
  });
});
