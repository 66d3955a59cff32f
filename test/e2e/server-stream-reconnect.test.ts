// Streams that survive dropped connections: a client cut off 100 times during a busy run, reconnecting each time with
// Last-Event-ID, ends up with every frame of the journal exactly once, in order.
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { agencyRootAt } from '../../src/config/agency-root.ts';
import { silentLogger } from '../../src/service/service-logger.ts';
import { createTaskService } from '../../src/service/task-service.ts';
import { type RunningServer, startServer } from '../../src/server/serve.ts';
import type { EventFrame } from '../../src/task/contracts/events.ts';
import { readJournal } from '../../src/task/journal/read-journal.ts';
import type { Loop } from '../../src/task/loop.ts';
import { createRunner } from '../../src/task/runner.ts';
import { fixtureTools, phaseModel } from '../support/governed-fixture.ts';

const TOKEN = 'reconnect-token-0123456789';
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
let rootDir: string;
beforeAll(async () => {
  rootDir = await mkdtemp(join(tmpdir(), 'agency-stream-'));
  const root = agencyRootAt(rootDir);
  const service = await createTaskService({
    root,
    models: ['test:busy'],
    approvalModes: ['auto'],
    runnerFor: async () =>
      createRunner({ model: phaseModel(), tools: (paths) => fixtureTools(paths), loops: [busy], approvals: 'auto' }),
  });
  server = await startServer({
    root,
    service,
    logger: silentLogger,
    version: 'test',
    policy: 'default',
    port: 0,
    env: { AGENCY_TOKEN: TOKEN },
  });
});
afterAll(async () => {
  await server?.close();
});

// Reads SSE frames until `stopAfter` frames came (then drops the connection) or the stream ends.
async function readSome(url: string, lastId: number | undefined, stopAfter: number) {
  const controller = new AbortController();
  const response = await fetch(url, {
    headers: {
      authorization: `Bearer ${TOKEN}`,
      accept: 'text/event-stream',
      ...(lastId === undefined ? {} : { 'last-event-id': String(lastId) }),
    },
    signal: controller.signal,
  });
  expect(response.status).toBe(200);
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  const frames: EventFrame[] = [];
  let buffer = '';
  let ended = false;
  try {
    while (frames.length < stopAfter) {
      const { value, done } = await reader.read();
      if (done) {
        ended = true;
        break;
      }
      buffer += value;
      let cut: number;
      while ((cut = buffer.indexOf('\n\n')) >= 0) {
        const event = buffer.slice(0, cut);
        buffer = buffer.slice(cut + 2);
        if (/^event: end$/m.test(event)) ended = true;
        const data = /^data: (.*)$/m.exec(event)?.[1];
        const id = /^id: (\d+)$/m.exec(event)?.[1];
        if (data && id) frames.push(JSON.parse(data) as EventFrame);
      }
    }
  } finally {
    controller.abort();
  }
  return { frames, ended };
}

it('loses and repeats no event over 100 forced disconnects, checked against the journal', async () => {
  const start = await fetch(`${server.url}/agent/tasks/do/async`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ brief: '# Busy\n\nBe busy.\n', loop: 'busy', approvals: { mode: 'auto' } }),
  });
  const { task_id: id } = (await start.json()) as { task_id: string };
  const url = `${server.url}/agent/tasks/${id}/events`;
  const seen: EventFrame[] = [];
  let disconnects = 0;
  const cutAt: number[] = [];
  for (;;) {
    // Cut off after a few frames, 100 times; then read to the end.
    const { frames, ended } = await readSome(
      url,
      seen.at(-1)?.seq,
      disconnects < 100 ? 1 + (disconnects % 7) : Infinity,
    );
    seen.push(...frames);
    if (ended) break;
    disconnects++;
    cutAt.push(Date.now());
  }
  expect(disconnects).toBeGreaterThanOrEqual(100);
  const { frames: journal } = await readJournal(join(rootDir, 'tasks', id, 'progress', 'events.ndjson'));
  expect(seen.map((frame) => frame.seq)).toEqual(journal.map((frame) => frame.seq));
  expect(seen.map((frame) => frame.id)).toEqual(journal.map((frame) => frame.id));
  expect(journal.length).toBeGreaterThan(2 * STEPS);
  expect(seen.at(-1)?.type).toBe('finish');
  // Most cuts happened while the run was still writing its journal.
  const finishedAt = Date.parse(journal.at(-1)!.ts);
  expect(cutAt.filter((time) => time < finishedAt).length).toBeGreaterThanOrEqual(80);
}, 60_000);
