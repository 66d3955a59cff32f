// A durable workflow run as the real `agency serve` shows it over HTTP: listed with its kind, state and usage, its
// journal streamed with the steps and the network's delegations, and refused (never resumed as a governed task) when
// asked to resume or stop it. Roots with a malformed, forged or linked workflow.json are refused with the reason.
import { copyFile, mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { taskDetailSchema, taskListSchema } from '../../src/api/schemas.ts';
import { agencyRootAt } from '../../src/config/agency-root.ts';
import { createIdGenerator } from '../../src/core/ids.ts';
import { eventFrameSchema } from '../../src/task/contracts/events.ts';
import { newsroomAnswers } from '../support/network-team.ts';
import { startOpenAICompatibleServer } from '../support/openai-compatible-server.ts';
import { type ServeProcess, startServeProcess } from '../support/serve-process.ts';
import { runDesk } from '../support/workflow-desk.ts';
import { until } from '../support/server-fixture.ts';
import { runWorkflow } from '../../src/compose/workflow/durable-run.ts';
import { createWorkflow } from '../../src/compose/workflow/workflow.ts';

const TOKEN = 'workflow-token-0123456789abcdef';
const newId = createIdGenerator();
let data: string;
let tasks: string;
let model: Awaited<ReturnType<typeof startOpenAICompatibleServer>>;
let server: ServeProcess;
const ids = {} as Record<'done' | 'waiting' | 'malformed' | 'forged' | 'governed' | 'linked' | 'orphan', string>;

const rootOf = (id: string) => join(tasks, id);
const marker = (id: string) => join(rootOf(id), 'workflow.json');
const journal = (id: string) => join(rootOf(id), 'progress', 'events.ndjson');

async function plantRoot(name: keyof typeof ids, journalFrom?: string) {
  ids[name] = newId('task');
  await mkdir(join(rootOf(ids[name]), 'progress'), { recursive: true });
  if (journalFrom) await copyFile(journal(journalFrom), journal(ids[name]));
}

beforeAll(async () => {
  data = await mkdtemp(join(tmpdir(), 'agency-serve-workflow-'));
  tasks = agencyRootAt(data).tasks;
  model = await startOpenAICompatibleServer(newsroomAnswers);
  ids.done = newId('task');
  await runDesk(rootOf(ids.done), { newsroomUrl: model.url });
  ids.waiting = newId('task');
  await runDesk(rootOf(ids.waiting), { approve: false });

  const real = JSON.parse(await readFile(marker(ids.done), 'utf8')) as Record<string, unknown>;
  await plantRoot('malformed', ids.done);
  await writeFile(marker(ids.malformed), JSON.stringify({ ...real, version: 'agency.workflow-run.v9' }));
  await plantRoot('forged', ids.done);
  await writeFile(marker(ids.forged), JSON.stringify({ ...real, workflow: 'payroll' }));
  await plantRoot('orphan');
  await writeFile(marker(ids.orphan), JSON.stringify(real));
  await plantRoot('linked', ids.done);
  await symlink(marker(ids.done), marker(ids.linked));
  // A governed task's root with a planted marker: refused, never resumed as the task it was.
  ids.governed = newId('task');
  await mkdir(join(rootOf(ids.governed), 'task'), { recursive: true });
  await mkdir(join(rootOf(ids.governed), 'progress'), { recursive: true });
  await writeFile(join(rootOf(ids.governed), 'task', 'brief.md'), '# A governed task\n');
  await writeFile(
    journal(ids.governed),
    `${JSON.stringify({ version: 'agent.events.v1', id: 'evt_01KB0000000000000000000000', seq: 1, ts: new Date().toISOString(), type: 'run.started', data: { spec: { goal: 'governed' } } })}\n`,
  );
  await writeFile(marker(ids.governed), JSON.stringify(real));

  server = await startServeProcess(['--root', data, '--model', `openai-compatible:${model.url}#local-model`], TOKEN);
}, 60_000);

afterAll(async () => {
  await server?.kill('SIGTERM');
  model?.server.close();
  await rm(data, { recursive: true, force: true });
});

describe('a workflow run in agency serve', () => {
  it('is listed with its kind, state and the usage of its steps; roots it cannot trust are left out', async () => {
    const list = taskListSchema.parse(await (await server.api('/agent/tasks')).json());
    const byId = new Map(list.items.map((item) => [item.id, item]));
    expect(byId.get(ids.done)).toMatchObject({ kind: 'workflow', status: 'completed', finish_reason: 'completed' });
    expect(byId.get(ids.done)?.goal).toBe('desk: I was charged twice this month!');
    expect(byId.get(ids.done)?.usage?.total_tokens).toBeGreaterThan(900);
    expect(byId.get(ids.waiting)).toMatchObject({ kind: 'workflow', status: 'stopped', finish_reason: 'stopped' });
    for (const name of ['malformed', 'forged', 'orphan', 'linked', 'governed'] as const)
      expect(byId.has(ids[name]), name).toBe(false);
  });

  it('shows its spec, and streams its journal with the steps and the delegations of its network step', async () => {
    const detail = taskDetailSchema.parse(await (await server.api(`/agent/tasks/${ids.done}`)).json());
    expect(detail).toMatchObject({ kind: 'workflow', status: 'completed', brief: '', files: [] });
    expect(detail.spec).toMatchObject({ kind: 'workflow', workflow: 'desk' });
    expect(detail.last_seq).toBeGreaterThan(10);

    const response = await server.api(`/agent/tasks/${ids.done}/events`);
    expect(response.status).toBe(200);
    const frames = (await response.text())
      .trim()
      .split('\n')
      .map((line) => eventFrameSchema.parse(JSON.parse(line)));
    const delegations = frames
      .filter((frame) => frame.type.startsWith('agent.'))
      .map(
        (frame) => `${frame.step} ${frame.type} ${(frame.data?.path as string[]).join('/')} ${frame.data?.tool ?? ''}`,
      );
    expect(delegations).toEqual([
      'newsroom agent.start newsroom/researcher ',
      'newsroom agent.event newsroom/researcher lookup',
      'newsroom agent.event newsroom/researcher lookup',
      'newsroom agent.finish newsroom/researcher ',
      'newsroom agent.start newsroom/writer ',
      'newsroom agent.finish newsroom/writer ',
    ]);
    const finish = frames.find((frame) => frame.type === 'agent.finish');
    expect(finish?.data).toMatchObject({ agent: 'researcher', finish_reason: 'stop', depth: 1 });
    expect((finish?.data?.usage as { total_tokens: number }).total_tokens).toBe(300);
    // Resumed from the journal after `since`, as the dashboard reconnects.
    const after = await server.api(`/agent/tasks/${ids.done}/events?after=${frames.length - 2}`);
    expect((await after.text()).trim().split('\n')).toHaveLength(2);
  });

  it('follows a live run: running with its step in flight, its frames streamed as they come until its finish', async () => {
    const id = newId('task');
    let release = () => {};
    const gate = new Promise<void>((resolve) => (release = resolve));
    const live = createWorkflow({
      name: 'live',
      steps: [
        { id: 'wait', run: async () => (await gate, 'ok') },
        { id: 'after', dependsOn: ['wait'], run: () => 'done' },
      ],
    });
    const run = runWorkflow(live, { input: 'live input' }, { root: rootOf(id) });
    const summary = await until(async () => {
      const list = taskListSchema.parse(await (await server.api('/agent/tasks')).json());
      return list.items.find((item) => item.id === id && item.phase === 'wait');
    });
    expect(summary).toMatchObject({ kind: 'workflow', status: 'running', finish_reason: null });
    const response = await server.api(`/agent/tasks/${id}/events`, { headers: { accept: 'text/event-stream' } });
    const reader = response.body!.getReader();
    let seen = '';
    while (!seen.includes('"phase.start"')) {
      const chunk = await reader.read();
      if (chunk.done) throw new Error(`the stream ended before the step started:\n${seen}`);
      seen += new TextDecoder().decode(chunk.value);
    }
    expect(seen).not.toContain('"finish"');
    release();
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read())
      seen += new TextDecoder().decode(chunk.value);
    expect(seen).toMatch(/"type":"finish".*"reason":"completed"/);
    expect(seen).toContain('event: end');
    expect((await run).output).toBe('done');
  });

  it('refuses to resume, stop or build a result for a workflow run, and leaves its journal as it was', async () => {
    const before = await readFile(journal(ids.waiting), 'utf8');
    for (const action of ['resume', 'stop'] as const) {
      const response = await server.api(`/agent/tasks/${ids.waiting}/${action}`, { method: 'POST', json: {} });
      expect(response.status, action).toBe(409);
      const body = (await response.json()) as { message: string; details: { agency_code: string } };
      expect(body.details.agency_code).toBe('task_state_conflict');
      expect(body.message).toContain(`is a run of workflow "desk", which the server shows but does not ${action}`);
    }
    const result = await server.api(`/agent/tasks/${ids.done}/result`);
    expect(result.status).toBe(409);
    expect(((await result.json()) as { message: string }).message).toContain('finish frame of its journal');
    expect(await readFile(journal(ids.waiting), 'utf8')).toBe(before);
  });

  it('refuses a malformed, forged, orphaned or linked marker, naming the file and what is wrong', async () => {
    const cases = [
      ['malformed', 409, /workflow\.json.*"version"/],
      ['forged', 409, /workflow\.json: "workflow" and "steps" \(payroll: .*\) differ from the journal's run\.started/],
      ['orphan', 409, /workflow\.json: progress\/events\.ndjson holds no run/],
      ['governed', 409, /workflow\.json: the journal's run\.started frame is not a workflow run's/],
      ['linked', 400, /workflow\.json is a symbolic link/],
    ] as const;
    for (const [name, status, message] of cases) {
      const before = await readFile(journal(ids[name]), 'utf8').catch(() => '');
      for (const [path, method] of [
        [`/agent/tasks/${ids[name]}`, 'GET'],
        [`/agent/tasks/${ids[name]}/events`, 'GET'],
        [`/agent/tasks/${ids[name]}/resume`, 'POST'],
      ] as const) {
        const response = await server.api(path, { method, ...(method === 'POST' ? { json: {} } : {}) });
        expect(response.status, `${name} ${path}`).toBe(status);
        expect(((await response.json()) as { message: string }).message, name).toMatch(message);
      }
      expect(await readFile(journal(ids[name]), 'utf8').catch(() => ''), name).toBe(before);
    }
    // The roots refused do not take the inbox or a decision down with them.
    expect((await server.api('/agent/approvals')).status).toBe(200);
    const decision = await server.api(`/agent/approvals/req_${ids.done.slice(5)}/decision`, {
      method: 'POST',
      json: { decision: 'approved' },
    });
    expect(decision.status).toBe(404);
  });
});
