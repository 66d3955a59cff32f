// client.tasks.events across dropped connections, against the real server over real sockets: a proxy resets the
// connection 100 times during a busy run, and stalls one while a task waits; the client reconnects on its own and
// yields every frame of the journal exactly once, in order.
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type AgencyClient, createClient, type EventFrame, type ReconnectInfo } from '../../src/client/index.ts';
import { agencyRootAt, createTaskService, type RunningServer, startServer } from '../../src/server/index.ts';
import { silentLogger } from '../../src/service/service-logger.ts';
import { readJournal } from '../../src/task/journal/read-journal.ts';
import type { Loop } from '../../src/task/loop.ts';
import { createRunner } from '../../src/task/runner.ts';
import { type CuttingProxy, startCuttingProxy } from '../support/cutting-proxy.ts';
import { fixtureTools, phaseModel } from '../support/governed-fixture.ts';

const TOKEN = 'client-reconnect-token-0123456789';
const STEPS = 400;
// A loop that journals two frames per step, a few milliseconds apart: a run that is busy for a few seconds.
const busy: Loop = {
  name: 'busy',
  version: '1',
  async run(context) {
    for (let index = 0; index < STEPS; index++) {
      await context.step(`note-${index}`, 'files', async () => {
        await new Promise((resolve) => setTimeout(resolve, 5));
        return { index };
      });
    }
    return { reason: 'completed', output: 'done' };
  },
};

let server: RunningServer;
let proxy: CuttingProxy;
let rootDir: string;
let client: AgencyClient;
beforeAll(async () => {
  rootDir = await mkdtemp(join(tmpdir(), 'agency-client-stream-'));
  const root = agencyRootAt(rootDir);
  const service = await createTaskService({
    root,
    models: ['test:busy'],
    approvalModes: ['file', 'auto'],
    runnerFor: async () => createRunner({ model: phaseModel(), tools: (paths) => fixtureTools(paths), loops: [busy] }),
  });
  proxy = await startCuttingProxy();
  server = await startServer({
    root,
    service,
    logger: silentLogger,
    version: 'test',
    policy: 'default',
    port: 0,
    heartbeatMs: 50,
    allowedHosts: [proxy.host],
    env: { AGENCY_TOKEN: TOKEN },
  });
  proxy.target(Number(new URL(server.url).port));
  client = createClient({ baseUrl: proxy.url, token: TOKEN });
});
afterAll(async () => {
  await proxy?.close();
  await server?.close();
});

async function journalOf(id: string): Promise<EventFrame[]> {
  return (await readJournal(join(rootDir, 'tasks', id, 'progress', 'events.ndjson'))).frames;
}

it('yields every frame once, in order, across 100 connections reset during a busy run', async () => {
  const { task_id: id } = await client.tasks.start({
    brief: '# Busy\n\nBe busy.\n',
    loop: 'busy',
    approvals: { mode: 'auto' },
  });
  const seen: EventFrame[] = [];
  const reconnects: ReconnectInfo[] = [];
  const cutAt: number[] = [];
  let sinceCut = 0;
  const events = client.tasks.events(id, {
    reconnect: { initialDelayMs: 5, maxDelayMs: 50 },
    onReconnect: (info) => reconnects.push(info),
  });
  for await (const frame of events) {
    seen.push(frame);
    // Reset the connection after a few frames, 100 times; then read to the end.
    if (cutAt.length < 100 && ++sinceCut >= 1 + (cutAt.length % 7) && proxy.cut() > 0) {
      cutAt.push(Date.now());
      sinceCut = 0;
    }
  }
  const journal = await journalOf(id);
  expect(cutAt.length).toBe(100);
  expect(reconnects.length).toBeGreaterThanOrEqual(100);
  expect(reconnects.every((info) => info.error.code === 'network_failed')).toBe(true);
  expect(seen.map((frame) => frame.seq)).toEqual(journal.map((frame) => frame.seq));
  expect(seen.map((frame) => frame.id)).toEqual(journal.map((frame) => frame.id));
  expect(journal.length).toBeGreaterThan(2 * STEPS);
  expect(seen.at(-1)?.type).toBe('finish');
  // The cuts happened while the run was still writing its journal.
  const finishedAt = Date.parse(journal.at(-1)!.ts);
  expect(cutAt.filter((time) => time < finishedAt).length).toBeGreaterThanOrEqual(80);
}, 60_000);

it('keeps a quiet stream open on heartbeats, and reconnects from a silent one', async () => {
  const brief = '# Summarise the notes\n\nWrite a one-line summary of task/input.txt to artifacts/summary.md.\n';
  const { task_id: id } = await client.tasks.start({ brief, files: [{ name: 'input.txt', content: 'Agency.\n' }] });
  const seen: EventFrame[] = [];
  const reconnects: ReconnectInfo[] = [];
  const events = client.tasks.events(id, {
    reconnect: { initialDelayMs: 5, idleTimeoutMs: 1000 },
    onReconnect: (info) => reconnects.push(info),
  });
  for await (const frame of events) {
    seen.push(frame);
    if (frame.type !== 'approval.requested') continue;
    // Waiting for a person: nothing but heartbeats (every 50 ms) for 2.5 s, past the idle timeout, and no reconnect.
    await new Promise((resolve) => setTimeout(resolve, 2500));
    expect(reconnects).toEqual([]);
    // Then the server's bytes stop coming: the client takes the connection for lost, and resumes after this frame.
    expect(proxy.stall(/\/events$/)).toBe(1);
    await client.approvals.decide(String(frame.data?.id), { decision: 'approved', task_id: id });
  }
  expect(reconnects.length).toBeGreaterThanOrEqual(1);
  expect(reconnects[0]?.error.message).toContain('nothing came for 1000 ms');
  const journal = await journalOf(id);
  expect(seen.map((frame) => frame.seq)).toEqual(journal.map((frame) => frame.seq));
  expect(seen.at(-1)).toMatchObject({ type: 'finish', data: { reason: 'completed' } });
}, 60_000);
