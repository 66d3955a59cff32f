// Governed tasks over MCP, with the official SDK client: a task started with start_task, followed with progress
// notifications until it waits for its plan approval, approved with decide_approval, followed to its end, and read
// back as tools and as agency:// resources. The decision file on disk is the one the CLI and the HTTP API write.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import type { InboxItem, TaskAction, TaskDetail } from '../../src/api/schemas.ts';
import type { FollowResult } from '../../src/server/mcp/follow-task.ts';
import { eventFrameSchema } from '../../src/task/contracts/events.ts';
import {
  brief,
  callJson,
  files,
  type McpTaskFixture,
  mcpTaskFixture,
  resourceText,
  startAndWait,
} from '../support/mcp-task-fixture.ts';

let fixture: McpTaskFixture;
afterEach(async () => {
  await fixture?.close();
});

const TASK_TOOLS = [
  'decide_approval',
  'follow_task',
  'get_task',
  'get_task_result',
  'list_approvals',
  'list_tasks',
  'read_deliverable',
  'release_task',
  'resume_task',
  'start_task',
  'stop_task',
  'upload_task_files',
];

describe('governed tasks over MCP', () => {
  it('starts a task, sees it wait for approval, approves it, follows it to the end and reads the deliverable', async () => {
    fixture = await mcpTaskFixture();
    const client = await fixture.connect();
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(TASK_TOOLS);

    const { taskId, pending, messages } = await startAndWait(client);
    expect(pending).toMatchObject({ task_id: taskId, state: 'pending', request: { type: 'plan' } });
    expect(pending.plan?.allowed_tools).toEqual(['write_artifact']);
    expect(messages.some((message) => message.startsWith('approval.requested'))).toBe(true);
    const inbox = await callJson<{ items: InboxItem[] }>(client, 'list_approvals', { task_id: taskId });
    expect(inbox.items.map((item) => item.request.id)).toEqual([pending.request.id]);

    const decision = await callJson(client, 'decide_approval', {
      request_id: pending.request.id,
      task_id: taskId,
      decision: 'approved',
      reason: 'the plan writes one summary',
    });
    expect(decision).toMatchObject({ decision: 'approved', approved_by: 'olivia' });
    // The same decision file `agency approve` and the HTTP API write, signed with the server's principal.
    const onDisk = JSON.parse(
      await readFile(
        join(fixture.root.tasks, taskId, 'progress/approvals/decisions', `${pending.request.id}.json`),
        'utf8',
      ),
    );
    expect(onDisk).toMatchObject({
      decision: 'approved',
      approved_by: 'olivia',
      reason: 'the plan writes one summary',
    });

    const seqs: number[] = [];
    const followed = await callJson<FollowResult>(
      client,
      'follow_task',
      { task_id: taskId, after: 0 },
      { onprogress: (progress) => seqs.push(progress.progress) },
    );
    expect(followed).toMatchObject({ ended_because: 'finished', task: { status: 'completed' } });
    expect(seqs.length).toBeGreaterThan(5);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));

    const detail = await callJson<TaskDetail>(client, 'get_task', { task_id: taskId });
    expect(detail.deliverables.map((file) => file.path)).toEqual(['progress/artifacts/summary.md']);
    const read = await client.callTool({
      name: 'read_deliverable',
      arguments: { task_id: taskId, path: 'progress/artifacts/summary.md' },
    });
    expect(read.content).toEqual([
      { type: 'text', text: 'Agency runs governed agents that plan, ask, act and verify.\n' },
    ]);
    expect(await callJson(client, 'get_task_result', { task_id: taskId, view: 'minimal' })).toMatchObject({
      task_id: taskId,
      finish_reason: 'completed',
    });

    // The same task as resources.
    const listed = await client.listResources();
    expect(listed.resources.map((resource) => resource.uri)).toEqual([
      'agency://approvals',
      `agency://tasks/${taskId}`,
    ]);
    const templates = await client.listResourceTemplates();
    expect(templates.resourceTemplates.map((template) => template.uriTemplate)).toContain(
      'agency://tasks/{task_id}/deliverables/{+path}',
    );
    const task = await client.readResource({ uri: `agency://tasks/${taskId}` });
    expect(JSON.parse(resourceText(task))).toMatchObject({ id: taskId, status: 'completed' });
    const events = await client.readResource({ uri: `agency://tasks/${taskId}/events` });
    const frames = resourceText(events)
      .trim()
      .split('\n')
      .map((line) => eventFrameSchema.parse(JSON.parse(line)));
    expect(frames.map((frame) => frame.seq)).toEqual(frames.map((_, index) => index + 1));
    expect(frames.at(-1)?.type).toBe('finish');
    expect(events.contents[0]?._meta).toEqual({ 'agency/last-seq': frames.length, 'agency/truncated': false });
    const tail = await client.readResource({ uri: `agency://tasks/${taskId}/events?after=${frames.length - 1}` });
    expect(resourceText(tail).trim().split('\n')).toHaveLength(1);
    const file = await client.readResource({ uri: `agency://tasks/${taskId}/deliverables/summary.md` });
    expect(file.contents[0]).toMatchObject({ mimeType: 'text/markdown', text: expect.stringContaining('governed') });
  });

  it('notifies a subscribed task resource as its run moves', async () => {
    fixture = await mcpTaskFixture();
    const client = await fixture.connect();
    const updated: string[] = [];
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (notification) => {
      updated.push(notification.params.uri);
    });
    const started = await callJson<TaskAction>(client, 'start_task', { brief, files, approvals: { mode: 'auto' } });
    await client.subscribeResource({ uri: `agency://tasks/${started.task_id}` });
    await client.subscribeResource({ uri: 'agency://approvals' });
    const followed = await callJson<FollowResult>(client, 'follow_task', { task_id: started.task_id });
    expect(followed.ended_because).toBe('finished');
    await new Promise((resolve) => setTimeout(resolve, 250));
    expect(updated).toContain(`agency://tasks/${started.task_id}`);
    expect(updated).toContain('agency://approvals');
    // Coalesced: far fewer notifications than frames.
    expect(updated.length).toBeLessThan(followed.last_seq);
  });

  it('holds a task for uploads, says it is not running, then starts it with release_task', async () => {
    fixture = await mcpTaskFixture();
    const client = await fixture.connect();
    const held = await callJson<TaskAction>(client, 'start_task', { brief, hold: true });
    expect(held.status).toBe('created');
    const idle = await callJson<FollowResult>(client, 'follow_task', { task_id: held.task_id });
    expect(idle).toMatchObject({ ended_because: 'not_running', frames: 0, task: { status: 'created' } });
    const uploaded = await callJson(client, 'upload_task_files', {
      task_id: held.task_id,
      files: [{ name: 'input.txt', content: Buffer.from(files[0]!.content).toString('base64'), encoding: 'base64' }],
    });
    expect(uploaded).toEqual({ task_id: held.task_id, files: [{ name: 'input.txt', size: files[0]!.content.length }] });
    expect(await callJson(client, 'release_task', { task_id: held.task_id })).toMatchObject({ status: 'queued' });
    const waiting = await callJson<FollowResult>(client, 'follow_task', { task_id: held.task_id });
    expect(waiting.ended_because).toBe('waiting_approval');
    // Following a task that waits answers at once; a short wait_ms ends a follow that has nothing to say.
    const again = await callJson<FollowResult>(client, 'follow_task', {
      task_id: held.task_id,
      after: waiting.last_seq,
    });
    expect(again).toMatchObject({ ended_because: 'waiting_approval', frames: 0, last_seq: waiting.last_seq });
    const stopped = await callJson<TaskAction>(client, 'stop_task', { task_id: held.task_id });
    expect(stopped.message).toMatch(/Stopping/);
    const end = await callJson<FollowResult>(client, 'follow_task', {
      task_id: held.task_id,
      after: waiting.last_seq,
      wait_ms: 5000,
    });
    expect(end).toMatchObject({ ended_because: 'finished', task: { status: 'stopped', finish_reason: 'stopped' } });
    expect(await callJson(client, 'resume_task', { task_id: held.task_id })).toMatchObject({ message: 'Resuming' });
    const resumed = await callJson<FollowResult>(client, 'follow_task', { task_id: held.task_id, after: end.last_seq });
    expect(resumed.ended_because).toBe('waiting_approval');
  });

  it('ends a follow after wait_ms while the run goes on', async () => {
    fixture = await mcpTaskFixture({
      script: {
        gather: () => new Promise(() => undefined) as never,
      },
    });
    const client = await fixture.connect();
    const started = await callJson<TaskAction>(client, 'start_task', { brief, files });
    const followed = await callJson<FollowResult>(client, 'follow_task', { task_id: started.task_id, wait_ms: 300 });
    expect(followed.ended_because).toBe('timeout');
    expect(followed.task.status).toBe('running');
    await callJson(client, 'stop_task', { task_id: started.task_id });
  });
});
