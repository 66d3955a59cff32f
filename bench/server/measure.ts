import { execFile } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { silentLogger } from '../../src/service/service-logger.ts';
import type { TaskService } from '../../src/service/task-service.ts';
import { type RunningServer, startServer } from '../../src/server/serve.ts';
import type { AgencyRoot } from '../../src/config/agency-root.ts';
import { openFileJournal } from '../../src/task/journal/file-journal.ts';
import { journalFolder } from './fixtures.ts';

const exec = promisify(execFile);
const LOAD = fileURLToPath(new URL('load.ts', import.meta.url));
export const TOKEN = 'bench-token-0123456789abcdef';

/** agency serve, in this process, over the fixture's service. */
export function startAgency(root: AgencyRoot, service: TaskService): Promise<RunningServer> {
  return startServer({
    root,
    service,
    logger: silentLogger,
    version: 'bench',
    policy: 'default',
    port: 0,
    env: { AGENCY_TOKEN: TOKEN },
    heartbeatMs: 60_000,
  });
}

/**
 * The reference: a bare `node:http` server answering the same route with the same work (the service's `get`, the
 * same file reads, JSON out), and nothing else: no router, no auth, no Host check, no headers of its own.
 */
export async function startBare(service: TaskService): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer((request, response) => {
    const id = request.url?.split('/')[3] ?? '';
    service.get(id).then(
      (detail) => {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(JSON.stringify(detail));
      },
      () => response.writeHead(404).end(),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Requests per second of one URL, from a load generator in another process. */
export async function requestsPerSecond(url: string, concurrency: number, seconds: number): Promise<number> {
  const { stdout } = await exec(process.execPath, [LOAD, url, TOKEN, String(concurrency), String(seconds)]);
  const { done, failures, seconds: took } = JSON.parse(stdout) as { done: number; failures: number; seconds: number };
  if (failures > 0) throw new Error(`${failures} requests to ${url} failed`);
  return done / took;
}

/** Reads an NDJSON event stream, calling `onFrame(seq)` for each frame, until `count` frames came. */
async function readFrames(url: string, count: number, onFrame: (seq: number) => void, signal: AbortSignal) {
  const response = await fetch(url, { headers: { authorization: `Bearer ${TOKEN}` }, signal });
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  let seen = 0;
  while (seen < count) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true });
    let cut: number;
    while ((cut = buffer.indexOf('\n')) >= 0) {
      const line = buffer.slice(0, cut);
      buffer = buffer.slice(cut + 1);
      if (line === '') continue;
      const seqAt = line.indexOf('"seq":');
      onFrame(Number.parseInt(line.slice(seqAt + 6), 10));
      seen++;
    }
  }
  await reader.cancel().catch(() => undefined);
}

/**
 * Latency from a frame's append to the journal to its arrival at each of `subscribers` NDJSON streams, all on
 * loopback in this process: the journal's own write and fsync, the server noticing the new bytes, and delivery. A
 * writer appends and flushes one frame every `gapMs`.
 */
export async function deliveryLatency(
  server: RunningServer,
  root: AgencyRoot,
  { subscribers, frames, gapMs }: { subscribers: number; frames: number; gapMs: number },
): Promise<number[]> {
  const { id, events } = await journalFolder(root);
  const journal = await openFileJournal(events, { writeDelayMs: 0 });
  journal.append({ type: 'run.started', message: 'bench' });
  await journal.flush();
  const durableAt = new Map<number, number>();
  const latencies: number[] = [];
  const controller = new AbortController();
  const readers = Array.from({ length: subscribers }, () =>
    readFrames(
      `${server.url}/agent/tasks/${id}/events?after=1`,
      frames,
      (seq) => {
        const at = durableAt.get(seq);
        if (at !== undefined) latencies.push(performance.now() - at);
      },
      controller.signal,
    ),
  );
  await new Promise((resolve) => setTimeout(resolve, 300));
  for (let index = 0; index < frames; index++) {
    const appendedAt = performance.now();
    const frame = journal.append({ type: 'warning', message: `frame ${index}` });
    durableAt.set(frame.seq, appendedAt);
    await journal.flush();
    await new Promise((resolve) => setTimeout(resolve, gapMs));
  }
  await Promise.race([Promise.all(readers), new Promise((resolve) => setTimeout(resolve, 5_000))]);
  controller.abort();
  await journal.close();
  return latencies;
}

/** Frames per second one NDJSON subscriber receives from a journal of `frames` frames already on disk. */
export async function streamThroughput(server: RunningServer, root: AgencyRoot, frames: number): Promise<number> {
  const { id, events } = await journalFolder(root);
  const journal = await openFileJournal(events, { sync: 'none' });
  for (let index = 0; index < frames; index++) {
    journal.append({
      type: 'tool.result',
      step: '0006-act',
      message: `fs_write ok ${index}`,
      data: { ok: true, index },
    });
    if (index % 10_000 === 0) await journal.flush();
  }
  journal.append({ type: 'finish', message: 'Finished: completed', data: { reason: 'completed' } });
  await journal.close();
  const controller = new AbortController();
  const started = performance.now();
  let received = 0;
  await readFrames(`${server.url}/agent/tasks/${id}/events`, frames + 1, () => received++, controller.signal);
  const seconds = (performance.now() - started) / 1000;
  if (received !== frames + 1) throw new Error(`received ${received} of ${frames + 1} frames`);
  return received / seconds;
}

/** The value at quantile `q` (0–1) of `values`. */
export function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
}
