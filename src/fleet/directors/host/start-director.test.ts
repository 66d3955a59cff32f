// The director host with a small kind of its own, over real HTTP: the universal routes, state.json and history,
// auth beyond loopback, config errors and a corrupt state file.
import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { afterEach, describe, expect, it } from 'vitest';
import { agencyRootAt } from '../../../config/agency-root.ts';
import { directorConfigSchema } from '../../../config/director-config.ts';
import { type FakeComponent, startFakeComponent } from '../../../../test/support/fake-component.ts';
import { rejection } from '../../../../test/support/rejection.ts';
import { defineDirectorKind, type DirectorContext } from '../director.ts';
import type { DispatchedTask } from '../task-dispatch.ts';
import { startDirector, type RunningDirector } from './start-director.ts';

const running: RunningDirector[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((director) => director.stop(0)));
});

type Config = z.output<typeof configSchema>;
const configSchema = directorConfigSchema({ greeting: z.string().default('hello') });
const stateSchema = z.object({ runs: z.number().int() }).strict();

// A kind that records one history entry per run and counts its runs in state.json.
const counterKind = defineDirectorKind({
  type: 'scheduler',
  configSchema,
  stateSchema,
  initialState: () => ({ runs: 0 }),
  interfaces: ['configurable'],
  create: (context: DirectorContext<Config, z.output<typeof stateSchema>>) => ({
    async run() {
      const runs = (await context.state.update((state) => ({ runs: state.runs + 1 }))).runs;
      const now = new Date().toISOString();
      for (let index = 0; index < 3; index++)
        await context.history.save({
          id: `run-${runs}-${index}`,
          kind: 'test',
          title: `${context.config.greeting} ${index}`,
          state: 'completed',
          started_at: new Date(Date.parse(now) + index).toISOString(),
          finished_at: now,
          task: null,
          result: { state: 'completed', output: 'x'.repeat(500), error: null, cost_usd: null, duration_seconds: 1 },
          details: {},
          log: [{ time: now, level: 'info', message: 'ran' }],
        });
      context.log.info(`run ${runs}`);
      if (!context.stopping.aborted)
        await new Promise((resolve) => context.stopping.addEventListener('abort', resolve, { once: true }));
    },
    status: () => ({ state: 'idle', current_task: null, config: { greeting: context.config.greeting } }),
    routes: [],
  }),
});

async function setup(config = 'type: scheduler\nname: counter\nport: 9300\n'): Promise<{ root: string; file: string }> {
  const root = await mkdtemp(join(tmpdir(), 'agency-director-'));
  await mkdir(join(root, 'directors', 'counter'), { recursive: true });
  const file = join(root, 'directors', 'counter', 'config.yaml');
  await writeFile(file, config);
  return { root, file };
}

async function start(root: string, file: string, env: NodeJS.ProcessEnv = {}) {
  const director = await startDirector({
    file,
    root: agencyRootAt(root),
    version: '0.0.0-test',
    port: 0,
    kind: counterKind,
    env,
    validateResponses: true,
  });
  running.push(director);
  return director;
}

async function json(url: string, init: RequestInit = {}): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(url, init);
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

async function waitFor<T>(check: () => Promise<T | undefined>): Promise<T> {
  for (let tries = 0; tries < 400; tries++) {
    const value = await check();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error('condition not met within 10 s');
}

describe('the director host', () => {
  it('serves /status, /history, /history/:id and /agents, and shuts down on POST /shutdown', async () => {
    const { root, file } = await setup();
    const director = await start(root, file);
    const status = await json(`${director.url}/status`);
    expect(status.body).toMatchObject({
      type: 'director',
      interfaces: ['statusable', 'observable', 'configurable'],
      name: 'counter',
      state: 'idle',
      config: { director_type: 'scheduler', greeting: 'hello' },
    });
    const page = await waitFor(async () => {
      const { body } = await json(`${director.url}/history?limit=2`);
      return body.total === 3 ? body : undefined;
    });
    expect(page).toMatchObject({ page: 1, limit: 2, total: 3 });
    const items = page.items as Array<{ id: string; result: { output: string } }>;
    expect(items.map((item) => item.id)).toEqual(['run-1-2', 'run-1-1']);
    expect(items[0]!.result.output).toHaveLength(200);
    expect((await json(`${director.url}/history/run-1-0`)).body).toMatchObject({ log: [{ message: 'ran' }] });
    expect((await json(`${director.url}/history/nope`)).status).toBe(404);
    expect((await json(`${director.url}/history/..%2Fstate`)).status).toBe(400);
    expect((await json(`${director.url}/history?page=0`)).status).toBe(400);
    expect((await json(`${director.url}/agents`)).body).toEqual({ items: expect.any(Array) as unknown });
    const shutdown = await json(`${director.url}/shutdown`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"timeout_seconds":1}',
    });
    expect(shutdown).toEqual({ status: 202, body: { message: 'Shutdown initiated', drain_timeout: 1 } });
    expect(await director.closed).toBeUndefined();
    expect(JSON.parse(await readFile(join(root, 'directors/counter/state.json'), 'utf8'))).toEqual({
      version: 1,
      type: 'scheduler',
      name: 'counter',
      state: { runs: 1 },
    });
    const log = await readFile(join(root, 'directors/counter/director.log'), 'utf8');
    expect(log).toContain('run 1');
    const components = log
      .split('\n')
      .filter(Boolean)
      .map((line) => (JSON.parse(line) as { component?: string }).component);
    expect(new Set(components)).toEqual(new Set(['director:counter']));
  });

  it('resumes from state.json on the next start', async () => {
    const { root, file } = await setup();
    await (await start(root, file)).stop(0);
    const again = await start(root, file);
    await waitFor(async () => ((await json(`${again.url}/history/run-2-0`)).status === 200 ? true : undefined));
  });

  it('refuses a malformed state.json, naming the file and how to recover', async () => {
    const { root, file } = await setup();
    const state = join(root, 'directors/counter/state.json');
    for (const text of ['{"version":1', '{"version":1,"type":"scheduler","name":"other","state":{"runs":1}}']) {
      await writeFile(state, text);
      const error = await rejection(start(root, file));
      expect(error.code).toBe('state_corrupt');
      expect(error.message).toContain(state);
      expect(error.message).toContain('move it aside');
    }
  });

  it('reports a config error with the file, line and field', async () => {
    const { root, file } = await setup('type: scheduler\nname: counter\nport: 9300\ngreting: hi\n');
    const error = await rejection(start(root, file));
    expect(error.code).toBe('invalid_config');
    expect(error.message).toContain(file);
    expect(error.message).toContain('greting');
  });

  it('moves a malformed history entry aside, and refuses a malformed shutdown body', async () => {
    const { root, file } = await setup();
    await mkdir(join(root, 'directors/counter/history'), { recursive: true });
    await writeFile(join(root, 'directors/counter/history/broken.json'), '{"id": "broken"');
    const director = await start(root, file);
    expect((await json(`${director.url}/history/broken`)).status).toBe(404);
    expect(await readFile(join(root, 'directors/counter/history/broken.json.corrupt'), 'utf8')).toContain('broken');
    const status = (await json(`${director.url}/status`)).body as { log: Array<{ message: string }> };
    expect(status.log.map((line) => line.message).join('\n')).toContain('broken.json is malformed');
    for (const body of ['{"timeout_seconds": -1}', '{"drain": 5}', 'not json'])
      expect(
        (
          await json(`${director.url}/shutdown`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body,
          })
        ).status,
        body,
      ).toBe(400);
    expect((await json(`${director.url}/status`)).body).toMatchObject({ state: 'idle' });
  });

  it('refuses a config without a port, a missing config, and a type no daemon runs', async () => {
    const noPort = await setup('type: scheduler\nname: counter\n');
    const error = await rejection(
      startDirector({ file: noPort.file, root: agencyRootAt(noPort.root), version: '0', kind: counterKind }),
    );
    expect(error.message).toContain('port: a director daemon needs one');
    const missing = await rejection(
      startDirector({
        file: join(noPort.root, 'directors/none/config.yaml'),
        root: agencyRootAt(noPort.root),
        version: '0',
      }),
    );
    expect(missing.message).toContain('no such file');
    const cli = await setup('type: cli\nname: counter\n');
    const refused = await rejection(startDirector({ file: cli.file, root: agencyRootAt(cli.root), version: '0' }));
    expect(refused.message).toContain('type: cli: the CLI director is `agency task`');
    const manager = await setup('type: manager\nname: counter\nport: 9300\n');
    const elsewhere = await rejection(
      startDirector({ file: manager.file, root: agencyRootAt(manager.root), version: '0' }),
    );
    expect(elsewhere.message).toContain('type: manager: the manager director is hosted by `agency worker <name>`');
  });

  it('requires a bearer token when bound beyond loopback', async () => {
    const { root, file } = await setup('type: scheduler\nname: counter\nport: 9300\nbind: 0.0.0.0\n');
    const director = await start(root, file, { AGENCY_TOKEN: 'a-token-of-at-least-16-chars' });
    expect((await json(`${director.url}/status`)).status).toBe(401);
    const wrong = await json(`${director.url}/status`, { headers: { authorization: 'Bearer wrong-token-xxxxxxxxx' } });
    expect(wrong.status).toBe(401);
    const right = await json(`${director.url}/status`, {
      headers: { authorization: 'Bearer a-token-of-at-least-16-chars' },
    });
    expect(right.status).toBe(200);
  });
});

describe("the director host's dispatch", () => {
  const fakes: FakeComponent[] = [];
  afterEach(async () => {
    await Promise.all(fakes.splice(0).map((fake) => fake.close()));
  });

  // A kind that hands out one task as it starts and keeps what became of it.
  const handOutOnce = (outcome: { placed?: DispatchedTask; error?: unknown }) =>
    defineDirectorKind({
      type: 'scheduler',
      configSchema,
      stateSchema,
      initialState: () => ({ runs: 0 }),
      interfaces: [],
      create: (context: DirectorContext<Config, z.output<typeof stateSchema>>) => ({
        async run() {
          await context.dispatch.dispatch({ prompt: 'tidy up' }).then(
            (placed) => (outcome.placed = placed),
            (error: unknown) => (outcome.error = error),
          );
          if (!context.stopping.aborted)
            await new Promise((resolve) => context.stopping.addEventListener('abort', resolve, { once: true }));
        },
        status: () => ({ state: 'idle', current_task: null, config: {} }),
        routes: [],
      }),
    });

  it('hands tasks to workers only, never to an idle taskable director (the manager)', async () => {
    const manager = await startFakeComponent({ name: 'manager', type: 'director', taskable: true });
    fakes.push(manager);
    const { root, file } = await setup(
      `type: scheduler\nname: counter\nport: 9300\ndiscovery:\n  method: static\n  static: [${manager.url}]\n`,
    );
    const outcome: { placed?: DispatchedTask; error?: unknown } = {};
    const director = await startDirector({
      file,
      root: agencyRootAt(root),
      version: '0.0.0-test',
      port: 0,
      kind: handOutOnce(outcome),
      env: {},
    });
    running.push(director);
    await waitFor(async () => ((outcome.placed ?? outcome.error) ? true : undefined));
    expect(outcome.placed).toBeUndefined();
    expect(outcome.error).toMatchObject({ code: 'no_worker' });
    expect(manager.tasks.size).toBe(0);
  });
});
