// Which queues a worker works for its labels, and that it polls only one while a job is in hand (a fake pg-boss).
import type { Job, JobResult, PgBoss } from 'pg-boss';
import { describe, expect, it } from 'vitest';
import { queueLabels, taskQueueName } from './database.ts';
import { workLabelQueues } from './label-queues.ts';

type Handler = (jobs: Job<unknown>[]) => Promise<JobResult[]>;

function fakeBoss(queues: string[]) {
  const handlers = new Map<string, Handler>();
  const log: string[] = [];
  let ids = 0;
  const boss = {
    getQueues: async () => queues.map((name) => ({ name })),
    work: async (name: string, _options: unknown, handler: Handler) => {
      handlers.set(name, handler);
      log.push(`work ${name}`);
      return `w${++ids}`;
    },
    offWork: async (name: string) => {
      handlers.delete(name);
      log.push(`off ${name}`);
    },
    notifyWorker: () => undefined,
  };
  return { boss: boss as unknown as PgBoss, handlers, log, queues };
}

const job = (id: string) => ({ id, data: {}, signal: new AbortController().signal }) as unknown as Job<unknown>;

describe('task queue names', () => {
  it('are one per executor and sorted label set, and read back', () => {
    expect(taskQueueName('builtin')).toBe('agency-tasks-builtin');
    expect(taskQueueName('claude', ['linux', 'gpu', 'linux'])).toBe('agency-tasks-claude/gpu/linux');
    expect(queueLabels('agency-tasks-claude/gpu/linux', 'claude')).toEqual(['gpu', 'linux']);
    expect(queueLabels('agency-tasks-claude', 'claude')).toEqual([]);
    expect(queueLabels('agency-tasks-claude/gpu', 'codex')).toBeUndefined();
    expect(queueLabels('agency-tasks-claudex', 'claude')).toBeUndefined();
    expect(queueLabels('agency-tasks-dead', 'claude')).toBeUndefined();
  });
});

describe('workLabelQueues', () => {
  it("works its executor's queues whose labels it has, and finds a new one on refresh", async () => {
    const fake = fakeBoss([
      'agency-tasks-builtin',
      'agency-tasks-builtin/gpu',
      'agency-tasks-builtin/gpu/linux',
      'agency-tasks-builtin/arm64',
      'agency-tasks-claude/gpu',
      'agency-tasks-dead',
    ]);
    const seen: string[] = [];
    const queues = await workLabelQueues({
      boss: fake.boss,
      executor: 'builtin',
      labels: ['gpu', 'linux'],
      handle: async () => [],
      onQueue: (name) => seen.push(name),
      onError: () => undefined,
      refreshMs: 60_000,
    });
    expect(queues.names()).toEqual([
      'agency-tasks-builtin',
      'agency-tasks-builtin/gpu',
      'agency-tasks-builtin/gpu/linux',
    ]);
    expect(seen).toEqual(queues.names());
    fake.queues.push('agency-tasks-builtin/linux', 'agency-tasks-builtin/linux/x86');
    await queues.refresh();
    expect(queues.names()).toContain('agency-tasks-builtin/linux');
    expect(queues.names()).not.toContain('agency-tasks-builtin/linux/x86');
    await queues.stop();
    expect(fake.handlers.size).toBe(0);
  });

  it('stops polling its other queues while a job is in hand, and works them again after', async () => {
    const fake = fakeBoss(['agency-tasks-builtin', 'agency-tasks-builtin/gpu']);
    let finish!: () => void;
    const queues = await workLabelQueues({
      boss: fake.boss,
      executor: 'builtin',
      labels: ['gpu'],
      handle: (jobs) =>
        new Promise((resolve) => (finish = () => resolve(jobs.map((one) => ({ id: one.id, status: 'completed' }))))),
      onQueue: () => undefined,
      onError: () => undefined,
      refreshMs: 60_000,
    });
    fake.log.length = 0;
    const running = fake.handlers.get('agency-tasks-builtin/gpu')!([job('j1')]);
    await new Promise((resolve) => setImmediate(resolve));
    expect(fake.log).toEqual(['off agency-tasks-builtin']);
    expect(queues.names()).toEqual(['agency-tasks-builtin/gpu']);
    await queues.refresh();
    expect(queues.names()).toEqual(['agency-tasks-builtin/gpu']);
    finish();
    expect(await running).toEqual([{ id: 'j1', status: 'completed' }]);
    await new Promise((resolve) => setImmediate(resolve));
    expect(fake.log).toEqual(['off agency-tasks-builtin', 'work agency-tasks-builtin']);
    expect(queues.names()).toEqual(['agency-tasks-builtin', 'agency-tasks-builtin/gpu']);
    await queues.stop();
  });
});
