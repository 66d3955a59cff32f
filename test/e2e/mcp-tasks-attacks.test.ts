// Governed tasks over MCP against what a hostile or confused client sends: bad arguments (errors name the field),
// path tricks in task ids, deliverable paths and resource URIs, planted links, decisions for another task's request
// and replayed ones, oversized reads, and over HTTP bad tokens, foreign Host and Origin, and hijacked sessions.
import { request as httpRequest } from 'node:http';
import { readdir, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterEach, describe, expect, it } from 'vitest';
import type { TaskAction } from '../../src/api/schemas.ts';
import type { FollowResult } from '../../src/server/mcp/follow-task.ts';
import {
  brief,
  callError,
  callJson,
  files,
  httpClient,
  resourceText,
  type McpTaskFixture,
  mcpTaskFixture,
  startAndWait,
} from '../support/mcp-task-fixture.ts';

let fixture: McpTaskFixture;
afterEach(async () => {
  await fixture?.close();
});

const ANA = 'ana-token-0123456789abcdef';
const BO = 'bo-token-0123456789abcdef';
const SOME_TASK = 'task_01M89MZNAP828YS61ZDP6W894Q';

async function finishedTask(client: Client): Promise<string> {
  const started = await callJson<TaskAction>(client, 'start_task', { brief, files, approvals: { mode: 'auto' } });
  const followed = await callJson<FollowResult>(client, 'follow_task', { task_id: started.task_id });
  expect(followed.task.status).toBe('completed');
  return started.task_id;
}

describe('task tools refuse bad arguments, naming the field', () => {
  it.each([
    ['no brief', {}, 'brief'],
    ['an unknown top-level field', { brief, sneaky: 1 }, 'sneaky'],
    ['an unknown nested field', { brief, approvals: { mode: 'file', sneaky: 1 } }, 'approvals.sneaky'],
    ['a model the server does not run', { brief, model: 'replay:/etc/passwd' }, 'model'],
    ['an SSRF model', { brief, model: 'openai-compatible:http://169.254.169.254/v1#x' }, 'model'],
    ['a file name that climbs', { brief, files: [{ name: '../escape.txt', content: 'x' }] }, 'files.0.name'],
    ['an absolute file name', { brief, files: [{ name: '/etc/cron.d/x', content: 'x' }] }, 'files.0.name'],
    ['bad base64', { brief, files: [{ name: 'a.bin', content: '***', encoding: 'base64' }] }, 'files.0.content'],
  ])('start_task with %s', async (_, args, field) => {
    fixture = await mcpTaskFixture();
    const client = await fixture.connect();
    const error = await callError(client, 'start_task', args);
    expect(error).toMatchObject({ error: 'validation_error', details: { field } });
    expect(error.message.startsWith(`${field}: `)).toBe(true);
    expect(await readdir(fixture.root.tasks)).toEqual([]);
  });

  it.each(['../../etc', 'task_../../x', `${SOME_TASK}/../..`, SOME_TASK.toLowerCase(), `${SOME_TASK}\0`, ''])(
    'refuses the task id %j in every task tool',
    async (taskId) => {
      fixture = await mcpTaskFixture();
      const client = await fixture.connect();
      for (const [tool, extra] of [
        ['get_task', {}],
        ['follow_task', {}],
        ['get_task_result', {}],
        ['stop_task', {}],
        ['resume_task', {}],
        ['release_task', {}],
        ['read_deliverable', { path: 'summary.md' }],
        ['upload_task_files', { files: [{ name: 'a.txt', content: 'x' }] }],
      ] as const) {
        const error = await callError(client, tool, { task_id: taskId, ...extra });
        expect(error, tool).toMatchObject({ error: 'validation_error', details: { field: 'task_id' } });
      }
    },
  );

  it('answers not_found for a well-formed id of no task', async () => {
    fixture = await mcpTaskFixture();
    const client = await fixture.connect();
    expect(await callError(client, 'get_task', { task_id: SOME_TASK })).toMatchObject({ error: 'not_found' });
  });
});

describe('deliverables and resources stay inside the task', () => {
  it('reads only delivered files: no path tricks, no planted links, nothing over the limit', async () => {
    fixture = await mcpTaskFixture({ tasks: { maxReadBytes: 30 } });
    const client = await fixture.connect();
    const taskId = await finishedTask(client);
    const artifacts = join(fixture.root.tasks, taskId, 'progress/artifacts');
    await symlink('/etc/passwd', join(artifacts, 'leak.md'));
    await symlink('../state.json', join(artifacts, 'state.md'));
    for (const path of [
      '../state.json',
      'progress/state.json',
      'progress/artifacts/../state.json',
      '/etc/passwd',
      '..%2Fstate.json',
      'leak.md',
      'state.md',
      'progress/events.ndjson',
      '../../../request.json',
    ]) {
      const error = await callError(client, 'read_deliverable', { task_id: taskId, path });
      expect(error.error, path).toBe('not_found');
    }
    // The summary is 62 bytes, over this server's 30-byte limit of MCP reads.
    const tooLarge = await callError(client, 'read_deliverable', { task_id: taskId, path: 'summary.md' });
    expect(tooLarge).toMatchObject({ error: 'payload_too_large', details: { field: 'path', limit: 30 } });
  });

  it.each([
    ['file:///etc/passwd', -32602],
    ['agency://tasks/../../etc/passwd', -32602],
    ['agency://tasks/task_../../etc', -32602],
    ['agency://tasks/{id}/deliverables/../../progress/state.json', -32602],
    ['agency://tasks/{id}/deliverables/..%2F..%2Fprogress%2Fstate.json', -32602],
    ['agency://tasks/{id}/deliverables/%2e%2e/state.json', -32602],
    ['agency://tasks/{id}/deliverables/summary.md%00', -32602],
    ['agency://tasks/{id}/deliverables/%E0%A4%A', -32602],
    ['agency://tasks/{id}/deliverables/summary.md?raw=1', -32602],
    ['agency://tasks/{id}/events?after=-1', -32602],
    ['agency://tasks/{id}/state.json', -32602],
    ['agency://tasks/{id}/deliverables/leak.md', -32002],
    ['agency://tasks/{id}/deliverables/state.json', -32002],
    [`agency://tasks/${SOME_TASK}`, -32002],
  ])('refuses the resource %s', async (template, code) => {
    fixture = await mcpTaskFixture();
    const client = await fixture.connect();
    const taskId = await finishedTask(client);
    await symlink('/etc/passwd', join(fixture.root.tasks, taskId, 'progress/artifacts/leak.md'));
    const uri = template.replace('{id}', taskId);
    const failure = await client.readResource({ uri }).then(
      () => undefined,
      (error: { code?: number; message?: string }) => error,
    );
    expect(failure?.code, uri).toBe(code);
    expect(failure?.message).not.toContain('root:');
  });
});

describe('decisions', () => {
  it("refuses a decision for another task's request, and a replayed decision that differs", async () => {
    fixture = await mcpTaskFixture();
    const client = await fixture.connect();
    const first = await startAndWait(client);
    const second = await startAndWait(client);
    const crossed = await callError(client, 'decide_approval', {
      request_id: second.pending.request.id,
      task_id: first.taskId,
      decision: 'approved',
    });
    expect(crossed).toMatchObject({ error: 'not_found' });
    expect(await readdir(join(fixture.root.tasks, second.taskId, 'progress/approvals/decisions'))).toEqual([]);
    const inbox = await callJson<{ items: unknown[] }>(client, 'list_approvals', { task_id: second.taskId });
    expect(inbox.items).toHaveLength(1);

    await callJson(client, 'decide_approval', {
      request_id: first.pending.request.id,
      decision: 'denied',
      reason: 'no',
    });
    const flipped = await callError(client, 'decide_approval', {
      request_id: first.pending.request.id,
      decision: 'approved',
    });
    expect(flipped.error).toBe('conflict');
    expect(
      await callError(client, 'decide_approval', { request_id: 'req_../../x', decision: 'approved' }),
    ).toMatchObject({ error: 'validation_error', details: { field: 'request_id' } });
    expect(
      await callError(client, 'decide_approval', { request_id: first.pending.request.id, decision: 'maybe' }),
    ).toMatchObject({ error: 'validation_error', details: { field: 'decision' } });
  });
});

/** A raw POST, so Host and Origin can be anything. */
function rawPost(url: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      url,
      { method: 'POST', headers: { 'content-type': 'application/json', ...headers } },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }));
  });
}

describe('over Streamable HTTP', () => {
  it('acts as the name of the bearer token, and refuses bad tokens, foreign hosts and origins', async () => {
    fixture = await mcpTaskFixture();
    await expect(fixture.mcp.listenHttp()).rejects.toThrow(/needs "tokens"/);
    const http = await fixture.mcp.listenHttp({
      tokens: [
        { name: 'ana', token: ANA },
        { name: 'bo', token: BO },
      ],
    });
    const host = `127.0.0.1:${http.port}`;
    for (const authorization of ['', 'Bearer ', `Bearer ${ANA.slice(0, -1)}`, `Bearer ${ANA}x`, `Basic ${ANA}`])
      expect(await rawPost(http.url, { host, authorization }), authorization).toBe(401);
    expect(await rawPost(http.url, { host: 'evil.example', authorization: `Bearer ${ANA}` })).toBe(403);
    expect(await rawPost(http.url, { host, origin: 'http://evil.example', authorization: `Bearer ${ANA}` })).toBe(403);

    const ana = await httpClient(http.url, ANA);
    const bo = await httpClient(http.url, BO);
    try {
      const { taskId, pending } = await startAndWait(ana);
      const decided = await callJson(bo, 'decide_approval', {
        request_id: pending.request.id,
        task_id: taskId,
        decision: 'approved',
      });
      expect(decided).toMatchObject({ approved_by: 'bo' });
      const followed = await callJson<FollowResult>(ana, 'follow_task', { task_id: taskId });
      expect(followed.task.status).toBe('completed');
      const detail = await ana.readResource({ uri: `agency://tasks/${taskId}` });
      expect(JSON.parse(resourceText(detail))).toMatchObject({
        approvals: [{ decision: { approved_by: 'bo' } }],
      });
    } finally {
      await Promise.all([ana.close(), bo.close()]);
    }
  });
});
