// A remote worker's task events on the server's live timeline: a queue-mode `agency worker` (its own data root) writes
// its executor's events to agency.task_history as they happen; `agency serve`, on the same real PostgreSQL, streams
// them as frames in order, resumes after Last-Event-ID without gaps or repeats, keeps following across a dropped LISTEN
// connection, never shows a stale epoch's write, and cuts an oversized row.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FleetTaskSummary } from '../../src/api/fleet-schemas.ts';
import { createClient } from '../../src/client/index.ts';
import { appendTaskEvents, EVENT_MESSAGE_CHARS } from '../../src/fleet/queue/task-events.ts';
import { readTask } from '../../src/fleet/queue/task-rows.ts';
import type { EventFrame } from '../../src/task/contracts/events.ts';
import { type PgFleet, startPgFleet, waitFor } from '../support/pg-fleet.ts';
import { type ServeProcess, startServeProcess } from '../support/serve-process.ts';

const TOKEN = 'fleet-events-serve-token-0123456789';
const MODEL = 'openai-compatible:http://127.0.0.1:9/v1#local-model';

let fleet: PgFleet;
let server: ServeProcess;
let root: string;

beforeAll(async () => {
  fleet = await startPgFleet();
  await fleet.startWorker('remote-a');
  root = await mkdtemp(join(tmpdir(), 'agency-serve-events-'));
  server = await startServeProcess(['--root', root, '--model', MODEL, '--fleet-ports', 'none'], TOKEN, {
    AGENCY_DATABASE_URL: fleet.pg.url,
  });
}, 180_000);

afterAll(async () => {
  await server?.kill('SIGTERM');
  await fleet?.close();
  if (root) await rm(root, { recursive: true, force: true });
}, 60_000);

type Sse = { id: string | undefined; event: string; data: string };

type Stream = {
  /** Reads on until `enough` holds for the events read so far, or the stream ends. */
  until(enough: (events: Sse[]) => boolean): Promise<{ events: Sse[]; ended: boolean }>;
  close(): void;
};

// Opens the task's event stream as a browser would (SSE, resuming after `lastEventId` when given).
async function openEvents(id: string, lastEventId?: number): Promise<Stream> {
  const controller = new AbortController();
  const answer = await fetch(`${server.url}/agent/fleet/tasks/${id}/events`, {
    headers: {
      authorization: `Bearer ${TOKEN}`,
      accept: 'text/event-stream',
      ...(lastEventId === undefined ? {} : { 'last-event-id': String(lastEventId) }),
    },
    signal: controller.signal,
  });
  expect(answer.status).toBe(200);
  const reader = answer.body!.getReader();
  const decoder = new TextDecoder();
  const events: Sse[] = [];
  let buffer = '';
  return {
    async until(enough) {
      for (;;) {
        for (let end = buffer.indexOf('\n\n'); end !== -1; end = buffer.indexOf('\n\n')) {
          const event = parseBlock(buffer.slice(0, end));
          buffer = buffer.slice(end + 2);
          if (event?.event === 'end') return { events, ended: true };
          if (event) events.push(event);
          if (event && enough(events)) return { events, ended: false };
        }
        const { value, done } = await reader.read();
        if (done) return { events, ended: false };
        buffer += decoder.decode(value, { stream: true });
      }
    },
    close: () => controller.abort(),
  };
}

// Reads the task's stream from the start (or after `lastEventId`) until `enough` holds or it ends.
async function readEvents(
  id: string,
  { lastEventId, enough }: { lastEventId?: number; enough: (events: Sse[]) => boolean },
): Promise<{ events: Sse[]; ended: boolean }> {
  const stream = await openEvents(id, lastEventId);
  try {
    return await stream.until(enough);
  } finally {
    stream.close();
  }
}

function parseBlock(block: string): Sse | undefined {
  let id: string | undefined;
  let event = 'message';
  const data: string[] = [];
  for (const line of block.split('\n')) {
    if (line.startsWith('id: ')) id = line.slice(4);
    else if (line.startsWith('event: ')) event = line.slice(7);
    else if (line.startsWith('data: ')) data.push(line.slice(6));
  }
  return data.length > 0 ? { id, event, data: data.join('\n') } : undefined;
}

const framesOf = (events: Sse[]) => events.map((event) => JSON.parse(event.data) as EventFrame);

async function historySeqs(id: string): Promise<number[]> {
  const { rows } = await fleet.db.pool.query<{ seq: string }>(
    'SELECT seq FROM agency.task_history WHERE task_id = $1 ORDER BY seq',
    [id],
  );
  return rows.map((row) => Number(row.seq));
}

async function listenerPids(): Promise<number[]> {
  const { rows } = await fleet.db.pool.query<{ pid: number }>(
    "SELECT pid FROM pg_stat_activity WHERE query = 'LISTEN agency_tasks' AND application_name = 'agency-serve'",
  );
  return rows.map((row) => row.pid);
}

describe("a remote worker's task events on agency serve", () => {
  it('streams them in order while the task runs, across a dropped LISTEN, and resumes after Last-Event-ID', async () => {
    const task = await fleet.dispatch.dispatch({ prompt: 'steps 12 400' });
    const calls = (events: Sse[]) => framesOf(events).filter((frame) => frame.type === 'tool.call').length;
    const stream = await openEvents(task.task_id);
    try {
      const first = await stream.until((events) => calls(events) >= 3);
      // Live: the first steps arrived while the task still ran.
      expect((await readTask(fleet.db.pool, task.task_id))?.state).toBe('working');
      const seen = framesOf(first.events);
      expect(seen.map((frame) => frame.seq)).toEqual(first.events.map((event) => Number(event.id)));
      expect(seen[0]).toMatchObject({ version: 'agent.events.v1', type: 'phase.start' });
      expect(seen.find((frame) => frame.type === 'run.started')?.message).toContain('scripted executor: steps');
      expect(seen.find((frame) => frame.type === 'tool.call')?.message).toBe('tool Step: {"step":1}');

      // The server's listening connection is cut while the task still runs; the open stream carries on.
      const before = await listenerPids();
      expect(before.length).toBeGreaterThan(0);
      await fleet.db.pool.query('SELECT pg_terminate_backend(pid) FROM unnest($1::int[]) AS pid', [before]);
      // The turn ends idle (the session waits for its next prompt), so the stream stays open after its `finish`.
      const whole = await stream.until((events) => framesOf(events).some((frame) => frame.type === 'finish'));
      const all = framesOf(whole.events);
      // Every row of the task, once, in order: none lost across the dropped connection.
      expect(all.map((frame) => frame.seq)).toEqual(await historySeqs(task.task_id));
      expect(all.filter((frame) => frame.type === 'tool.call').map((frame) => frame.message)).toEqual(
        Array.from({ length: 12 }, (_, index) => `tool Step: {"step":${index + 1}}`),
      );
      expect(all.at(-1)).toMatchObject({ type: 'finish', message: 'turn 1 over: idle, waiting for the next prompt' });
      // A new LISTEN connection took the place of the one cut.
      await waitFor('a new listener', 15_000, async () => (await listenerPids()).some((pid) => !before.includes(pid)));

      // A client that reconnects after the fifth frame gets the rest: no gap, no repeat.
      const fifth = all[4]!.seq;
      const resumed = await readEvents(task.task_id, {
        lastEventId: fifth,
        enough: (events) => framesOf(events).some((frame) => frame.type === 'finish'),
      });
      expect(framesOf(resumed.events).map((frame) => frame.seq)).toEqual(all.slice(5).map((frame) => frame.seq));
    } finally {
      stream.close();
    }
    await fleet.dispatch.end(task);
  }, 120_000);

  it('does not show a write of a stale epoch, and ends the stream when the task is final', async () => {
    const task = await fleet.dispatch.dispatch({ prompt: 'steps 2 0' });
    await waitFor(
      'the turn is over',
      30_000,
      async () => (await readTask(fleet.db.pool, task.task_id))?.state === 'idle',
    );
    const row = (await readTask(fleet.db.pool, task.task_id))!;
    expect(row.epoch).toBe(1);
    // A run that lost the task (epoch 0: before the take) writes late: refused, nothing stored.
    const stale = { time: new Date().toISOString(), level: 'info', type: 'tool.call', message: 'from a stale run' };
    expect(await appendTaskEvents(fleet.db.pool, task.task_id, 0, [stale])).toBe(false);
    await fleet.dispatch.end(task);
    const { events, ended } = await readEvents(task.task_id, { enough: () => false });
    expect(ended).toBe(true);
    const frames = framesOf(events);
    expect(frames.map((frame) => frame.message)).not.toContain('from a stale run');
    expect(frames.every((frame) => frame.data?.epoch === 1)).toBe(true);
    expect(frames[frames.length - 1]).toMatchObject({ type: 'finish', message: 'turn 1 over: completed' });
  }, 60_000);

  it('cuts an oversized event: as the worker writes it, and as the server reads a row written by hand', async () => {
    const task = await fleet.dispatch.dispatch({ prompt: 'big 100000' });
    await waitFor(
      'the turn is over',
      30_000,
      async () => (await readTask(fleet.db.pool, task.task_id))?.state === 'idle',
    );
    const { rows } = await fleet.db.pool.query<{ length: number }>(
      "SELECT max(length(event->>'message'))::int AS length FROM agency.task_history WHERE task_id = $1",
      [task.task_id],
    );
    expect(rows[0]!.length).toBeLessThanOrEqual(EVENT_MESSAGE_CHARS);
    // A row of 2 MB put there by hand (another version, an operator): the server reads its first characters only.
    await fleet.db.pool.query(
      `INSERT INTO agency.task_history (task_id, epoch, event) VALUES ($1, 1, jsonb_build_object('time', 'not a time',
         'level', 'warn', 'type', 'not.a.type', 'message', repeat('x', 2000000)))`,
      [task.task_id],
    );
    await fleet.dispatch.end(task);
    const { events } = await readEvents(task.task_id, { enough: () => false });
    const frames = framesOf(events);
    const cut = frames.filter((frame) => frame.message?.includes('[cut: '));
    expect(cut.map((frame) => frame.message!.length <= EVENT_MESSAGE_CHARS)).toEqual([true, true]);
    const kept = EVENT_MESSAGE_CHARS - 48;
    expect(cut.map((frame) => frame.message!.slice(-40))).toEqual([
      expect.stringContaining(`[cut: ${100_000 - kept} more characters]`),
      expect.stringContaining(`[cut: ${2_000_000 - kept} more characters]`),
    ]);
    // The hand-written row's unknown type and time became a warning at the database's time.
    const handmade = cut[1]!;
    expect(handmade.type).toBe('warning');
    expect(Number.isFinite(Date.parse(handmade.ts))).toBe(true);
  }, 60_000);

  it('lists the fleet tasks from the database, newest first, with their worker', async () => {
    const answer = await server.api('/agent/fleet/tasks?limit=2');
    expect(answer.status).toBe(200);
    const { items } = (await answer.json()) as { items: FleetTaskSummary[] };
    expect(items).toHaveLength(2);
    expect(items[0]).toMatchObject({ prompt: 'big 100000', worker: 'remote-a', state: 'completed', epoch: 1 });
    expect(items[1]).toMatchObject({ prompt: 'steps 2 0', worker: 'remote-a' });
  });

  it('refuses a missing or wrong token, a task id that is not one, an unknown task and a malformed resume point', async () => {
    const { items } = (await (await server.api('/agent/fleet/tasks')).json()) as { items: FleetTaskSummary[] };
    const known = items[0]!.id;
    for (const path of ['/agent/fleet/tasks', `/agent/fleet/tasks/${known}/events`]) {
      expect([path, (await fetch(`${server.url}${path}`)).status]).toEqual([path, 401]);
      const wrong = await fetch(`${server.url}${path}`, { headers: { authorization: 'Bearer not-the-token' } });
      expect([path, wrong.status]).toEqual([path, 401]);
      expect(await wrong.text()).not.toContain(known);
    }
    const status = async (path: string, headers: Record<string, string> = {}) => {
      const answer = await server.api(path, { headers });
      return { status: answer.status, body: (await answer.json()) as { error: string; message: string } };
    };
    for (const bad of ['not-an-id', 'task-0', "task-'%3B--", `${known}x`]) {
      const { status: code, body } = await status(`/agent/fleet/tasks/${bad}/events`);
      expect([bad, code, body.error]).toEqual([bad, 400, 'validation_error']);
    }
    const unknown = await status(`/agent/fleet/tasks/task-${'0'.repeat(26)}/events`);
    expect(unknown).toMatchObject({ status: 404, body: { error: 'not_found' } });
    expect(unknown.body.message).toContain('not found in the fleet database');
    expect((await status(`/agent/fleet/tasks/${known}/events?after=-1`)).status).toBe(400);
    expect((await status(`/agent/fleet/tasks/${known}/events`, { 'last-event-id': 'abc' })).status).toBe(400);
    for (const limit of ['0', '201', 'many'])
      expect((await status(`/agent/fleet/tasks?limit=${limit}`)).status).toBe(400);
  });

  it("is followed to the task's end by the typed client, which refuses an id that is not one", async () => {
    const client = createClient({ baseUrl: server.url, token: TOKEN });
    const task = await fleet.dispatch.dispatch({ prompt: 'steps 3 0' });
    await waitFor(
      'the turn is over',
      30_000,
      async () => (await readTask(fleet.db.pool, task.task_id))?.state === 'idle',
    );
    await fleet.dispatch.end(task);
    const frames: EventFrame[] = [];
    for await (const frame of client.fleet.taskEvents(task.task_id)) frames.push(frame);
    expect(frames.map((frame) => frame.seq)).toEqual(await historySeqs(task.task_id));
    expect(frames.filter((frame) => frame.type === 'tool.call')).toHaveLength(3);
    expect((await client.fleet.tasks({ limit: 1 })).items.map((item) => item.id)).toEqual([task.task_id]);
    expect(() => client.fleet.taskEvents('../../agent/tasks')).toThrow(/is not a worker task id/);
  }, 60_000);
});
