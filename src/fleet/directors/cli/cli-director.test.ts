import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type LiveWorker, startLiveWorker } from '../../../../test/support/live-worker.ts';
import { createCliDirector } from './cli-director.ts';
import { sessionsFile } from './sessions.ts';
import { rejection } from '../../../../test/support/rejection.ts';

let root: string;
const workers: LiveWorker[] = [];
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'agency-cli-director-'));
});
afterEach(async () => {
  await Promise.all(workers.splice(0).map((worker) => worker.close()));
  await rm(root, { recursive: true, force: true });
});

async function fleet(...names: string[]) {
  for (const name of names) workers.push(await startLiveWorker({ name }));
  return createCliDirector({ discovery: { ports: null, urls: workers.map((worker) => worker.url) }, agencyRoot: root });
}

describe('the CLI director', () => {
  it('starts a session, continues the last one twice on the same worker, and ends it', async () => {
    const director = await fleet('a', 'b');
    const started = await director.send({ prompt: 'first' });
    expect(started.how).toBe('started');
    expect((await director.follow(started)).output).toBe('done: first');
    for (const prompt of ['second', 'third']) {
      const next = await director.send({ prompt, session: 'last' });
      expect([next.how, next.taskId, next.url, next.sessionId]).toEqual([
        'continued',
        started.taskId,
        started.url,
        started.sessionId,
      ]);
      const turn = await director.follow(next);
      expect([turn.state, turn.output]).toEqual(['idle', `done: ${prompt}`]);
    }
    const { answer } = await director.end('last');
    expect([answer?.state, answer?.output]).toEqual(['completed', 'done: third']);
    expect((await director.end(started.sessionId)).answer).toBeUndefined();
    const remembered = JSON.parse(await readFile(sessionsFile(root), 'utf8')) as {
      sessions: Array<{ task_id: string }>;
    };
    expect(remembered.sessions.map((session) => session.task_id)).toEqual([started.taskId]);
  });

  it('carries on an ended session as a new task of it, on the worker that ran it', async () => {
    const director = await fleet('a', 'b');
    const first = await director.send({ prompt: 'first', agent: 'b' });
    expect(first.name).toBe('b');
    await director.follow(first);
    await director.end(first.sessionId);
    const resumed = await director.send({ prompt: 'again', session: first.sessionId });
    expect([resumed.how, resumed.name, resumed.sessionId]).toEqual(['resumed', 'b', first.sessionId]);
    expect(resumed.taskId).not.toBe(first.taskId);
  });

  it('finds a session it did not start by asking the workers', async () => {
    await fleet('a');
    const other = await startLiveWorker({ name: 'elsewhere' });
    workers.push(other);
    const response = await fetch(`${other.url}/task`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ prompt: 'from the dashboard' }),
    });
    const { task_id: taskId, session_id: sessionId } = (await response.json()) as {
      task_id: string;
      session_id: string;
    };
    const everywhere = createCliDirector({
      discovery: { ports: null, urls: workers.map((worker) => worker.url) },
      agencyRoot: root,
    });
    await everywhere.follow({ url: other.url, taskId, sessionId, name: undefined, how: 'started' });
    const next = await everywhere.send({ prompt: 'and more', session: sessionId });
    expect([next.how, next.url, next.taskId]).toEqual(['continued', other.url, taskId]);
  });

  it('names what is wrong: no session yet, an unknown one, one still working, an unknown worker', async () => {
    const director = await fleet('a');
    const none = await rejection(director.send({ prompt: 'x', session: 'last' }));
    expect([none.code, none.message]).toEqual([
      'invalid_argument',
      `No session to carry on: \`agency task\` has not started one with this data root (${root}). Pass --session ID.`,
    ]);
    const unknown = await rejection(director.end('5f0c7a43-3b1e-4f43-9d41-1f2a3b4c5d6e'));
    expect(unknown.message).toBe('No worker knows session 5f0c7a43-3b1e-4f43-9d41-1f2a3b4c5d6e.');
    const working = await director.send({ prompt: 'sleep 20000' });
    const busy = await rejection(director.send({ prompt: 'more', session: 'last' }));
    expect([busy.code, busy.message]).toEqual([
      'agent_busy',
      `Session ${working.sessionId} is still working (${working.taskId} on ${working.url}).`,
    ]);
    const nobody = await rejection(director.send({ prompt: 'x', agent: 'zed' }));
    expect([nobody.code, nobody.message]).toEqual([
      'no_worker',
      `No worker "zed" among the 1 found (a (${workers[0]!.url})).`,
    ]);
  });

  it('refuses a sessions file it did not write, naming the file and the fix', async () => {
    const director = await fleet('a');
    await director.send({ prompt: 'first' });
    await writeFile(sessionsFile(root), '{"version": 1, "sessions": [{"session_id": 7}]}');
    const corrupt = await rejection(director.send({ prompt: 'x', session: 'last' }));
    expect([corrupt.code, corrupt.message]).toEqual([
      'invalid_config',
      `${sessionsFile(root)}: "sessions.0.session_id" Invalid input: expected string, received number. It holds only ` +
        'the sessions `agency task` remembers; delete it to start afresh.',
    ]);
  });
});
