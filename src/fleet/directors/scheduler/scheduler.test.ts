// The scheduler with an injected clock and an in-memory context: which slots fire over simulated days (DST
// included), overlap, catch-up after downtime, resuming after a kill, and a run that finds no worker.
import { describe, expect, it } from 'vitest';
import { createFakeTimers, type FakeTimers } from '../../../../test/support/fake-timers.ts';
import { agencyRootAt } from '../../../config/agency-root.ts';
import { AgencyError } from '../../../core/errors.ts';
import { createRedactor } from '../../../core/redact.ts';
import type { DirectorEntry } from '../../api/director-schemas.ts';
import type { WorkerTask } from '../../api/worker-schemas.ts';
import type { DirectorContext, WorkspaceLocks } from '../director.ts';
import type { DispatchOutcome, DispatchRequest, DispatchedTask, TaskDispatch } from '../task-dispatch.ts';
import { type SchedulerConfig, schedulerConfigSchema } from './schedule-config.ts';
import { createScheduler } from './scheduler.ts';
import type { SchedulerState } from './scheduler-state.ts';

const MINUTE = 60_000;

type Harness = {
  timers: FakeTimers;
  dispatched: DispatchRequest[];
  history: Map<string, DirectorEntry>;
  state: () => SchedulerState;
  /** Finishes the task of the nth dispatch (0-based) when runs are held. */
  release(index: number): void;
  stop(): Promise<void>;
  running: Promise<void>;
};

function config(fields: Record<string, unknown>): SchedulerConfig {
  return schedulerConfigSchema.parse({ type: 'scheduler', name: 'sched', ...fields });
}

function entry(name: string, cron: string, extra: Record<string, unknown> = {}) {
  return { name, cron, prompt: `do ${name}`, workdir: '/srv/work', ...extra };
}

function taskOf(index: number): DispatchedTask {
  const id = String(index).padStart(26, '0');
  return {
    worker: { name: 'w1', url: 'http://127.0.0.1:1' },
    task_id: `task-${id}`,
    session_id: `00000000-0000-4000-8000-${id.slice(-12)}`,
  };
}

function completed(task: DispatchedTask): DispatchOutcome {
  const worker: WorkerTask = {
    task_id: task.task_id,
    state: 'completed',
    executor: 'claude',
    exit_code: 0,
    started_at: null,
    completed_at: null,
    duration_seconds: 1,
    output: 'ok',
    error: null,
    session_id: task.session_id,
    token_usage: null,
    cost_usd: 0.01,
    turns: 1,
  };
  return { state: 'completed', task: worker };
}

function harness(
  cfg: SchedulerConfig,
  {
    start,
    initial = { last_slots: {}, runs: [] },
    hold = false,
    dispatchError,
    waits = 0,
    placed,
  }: {
    start: number;
    initial?: SchedulerState;
    hold?: boolean;
    dispatchError?: AgencyError;
    waits?: number;
    /** A task a worker took before a kill: what the dispatch's `find` answers for its session. */
    placed?: DispatchedTask;
  },
): Harness {
  const timers = createFakeTimers(start);
  const dispatched: DispatchRequest[] = [];
  const history = new Map<string, DirectorEntry>();
  const releases = new Map<number, () => void>();
  let state = structuredClone(initial);
  const dispatch: TaskDispatch = {
    async dispatch(request, options) {
      for (let wait = 0; wait < waits; wait++) options?.onWait?.({ delayMs: 250 * 2 ** wait, busy: ['w1: working'] });
      if (dispatchError) throw dispatchError;
      dispatched.push(request);
      return taskOf(dispatched.length - 1);
    },
    async settle(task) {
      const index = Number(task.task_id.slice(5));
      if (hold && index < dispatched.length) await new Promise<void>((resolve) => releases.set(index, resolve));
      return completed(task);
    },
    continue: async () => undefined,
    end: async () => undefined,
    cancel: async () => undefined,
    find: async (placement) => (placed?.session_id === placement.session_id ? placed : undefined),
  };
  const locks: WorkspaceLocks = {
    acquire: async (workdir) => ({ workdir, attach: async () => undefined, release: async () => undefined }),
  };
  const stopping = new AbortController();
  const context: DirectorContext<SchedulerConfig, SchedulerState> = {
    config: cfg,
    root: agencyRootAt('/nonexistent'),
    redactor: createRedactor(),
    files: { config: '/nonexistent/config.yaml', dir: '/nonexistent' },
    state: {
      get: () => state,
      update: async (change) => (state = change(state)),
    },
    history: {
      save: async (one) => void history.set(one.id, structuredClone(one)),
      read: async (id) => structuredClone(history.get(id)),
    },
    log: { info: () => undefined, warn: () => undefined, error: () => undefined },
    dispatch,
    locks,
    workers: () => [],
    timers,
    stopping: stopping.signal,
    signal: new AbortController().signal,
  };
  const scheduler = createScheduler(context);
  const running = scheduler.run();
  return {
    timers,
    dispatched,
    history,
    state: () => state,
    release: (index) => releases.get(index)?.(),
    async stop() {
      stopping.abort();
      for (const release of releases.values()) release();
      await timers.advance(0);
      await running;
    },
    running,
  };
}

const byState = (history: Map<string, DirectorEntry>, state: string) =>
  [...history.values()].filter((one) => one.state === state).length;

describe('the scheduler, with an injected clock', () => {
  it('fires a minute-by-minute entry exactly 1440 times over a day, and a 2 am one exactly once', async () => {
    const start = Date.parse('2026-11-25T00:00:00Z') - 1;
    const run = harness(config({ schedule: [entry('every-minute', '* * * * *'), entry('nightly', '0 2 * * *')] }), {
      start,
    });
    await run.timers.advance(24 * 60 * MINUTE);
    const prompts = run.dispatched.map((request) => request.prompt);
    expect(prompts.filter((prompt) => prompt === 'do every-minute')).toHaveLength(1440);
    expect(prompts.filter((prompt) => prompt === 'do nightly')).toHaveLength(1);
    expect(run.history.get('nightly@2026-11-25T02:00:00.000Z')).toMatchObject({
      state: 'completed',
      result: { state: 'completed', output: 'ok', cost_usd: 0.01 },
    });
    expect(byState(run.history, 'completed')).toBe(1441);
    expect(run.state().runs).toEqual([]);
    await run.stop();
  }, 60_000);

  it('keeps to local time across DST: the 25-hour day of Europe/Berlin has 25 hourly runs and one 2:30 run', async () => {
    // 2026-10-25 00:00 CEST is 2026-10-24T22:00Z; the next midnight (CET) is 2026-10-25T23:00Z.
    const start = Date.parse('2026-10-24T22:00:00Z') - 1;
    const run = harness(
      config({ timezone: 'Europe/Berlin', schedule: [entry('hourly', '0 * * * *'), entry('half-two', '30 2 * * *')] }),
      { start },
    );
    await run.timers.advance(25 * 60 * MINUTE);
    const prompts = run.dispatched.map((request) => request.prompt);
    expect(prompts.filter((prompt) => prompt === 'do hourly')).toHaveLength(25);
    expect(prompts.filter((prompt) => prompt === 'do half-two')).toHaveLength(1);
    await run.stop();
  }, 60_000);

  it('keeps to local time when summer time starts: 23 hourly runs, and a 2:30 run right after the gap', async () => {
    // 2026-03-29 00:00 CET is 2026-03-28T23:00Z; 02:00 CET jumps to 03:00 CEST (01:00Z); the day ends at 22:00Z.
    const start = Date.parse('2026-03-28T23:00:00Z') - 1;
    const run = harness(
      config({ timezone: 'Europe/Berlin', schedule: [entry('hourly', '0 * * * *'), entry('half-two', '30 2 * * *')] }),
      { start },
    );
    await run.timers.advance(23 * 60 * MINUTE);
    const prompts = run.dispatched.map((request) => request.prompt);
    expect(prompts.filter((prompt) => prompt === 'do hourly')).toHaveLength(23);
    expect([...run.history.keys()].filter((id) => id.startsWith('half-two'))).toEqual([
      'half-two@2026-03-29T01:00:00.000Z',
    ]);
    await run.stop();
  }, 60_000);

  it('uses an entry’s own time zone over the schedule’s', async () => {
    const start = Date.parse('2026-11-25T00:00:00Z') - 1;
    const run = harness(
      config({ timezone: 'UTC', schedule: [entry('ny', '0 9 * * *', { timezone: 'America/New_York' })] }),
      { start },
    );
    await run.timers.advance(24 * 60 * MINUTE);
    expect([...run.history.keys()]).toEqual(['ny@2026-11-25T14:00:00.000Z']);
    await run.stop();
  });

  it('skips a slot whose entry still runs (overlap: skip), and records it', async () => {
    const start = Date.parse('2026-11-25T00:00:00Z') - 1;
    const run = harness(config({ schedule: [entry('slow', '* * * * *')] }), { start, hold: true });
    await run.timers.advance(3 * MINUTE);
    expect(run.dispatched).toHaveLength(1);
    expect(byState(run.history, 'skipped')).toBe(2);
    expect(run.history.get('slow@2026-11-25T00:01:00.000Z')?.log[0]?.message).toContain(
      'skipped: run slow@2026-11-25T00:00:00.000Z still goes',
    );
    run.release(0);
    await run.timers.advance(MINUTE);
    expect(run.dispatched).toHaveLength(2);
    await run.stop();
  });

  it('queues one run behind a running one (overlap: queue) and skips the rest', async () => {
    const start = Date.parse('2026-11-25T00:00:00Z') - 1;
    const run = harness(config({ overlap: 'queue', schedule: [entry('slow', '* * * * *')] }), { start, hold: true });
    await run.timers.advance(3 * MINUTE);
    expect(run.dispatched).toHaveLength(1);
    expect(byState(run.history, 'skipped')).toBe(1);
    run.release(0);
    await run.timers.advance(0);
    expect(run.dispatched).toHaveLength(2);
    expect(run.history.get('slow@2026-11-25T00:01:00.000Z')?.state).toBe('running');
    await run.stop();
  });

  it('runs only the latest slot missed while down (catch_up: latest), or none (catch_up: none)', async () => {
    const now = Date.parse('2026-11-25T05:30:00Z');
    const initial = { last_slots: { hourly: '2026-11-25T01:00:00.000Z' }, runs: [] };
    const latest = harness(config({ schedule: [entry('hourly', '0 * * * *')] }), { start: now, initial });
    await latest.timers.advance(0);
    expect([...latest.history.keys()]).toEqual(['hourly@2026-11-25T05:00:00.000Z']);
    await latest.stop();
    const none = harness(config({ catch_up: 'none', schedule: [entry('hourly', '0 * * * *')] }), {
      start: now,
      initial,
    });
    await none.timers.advance(29 * MINUTE);
    expect(none.dispatched).toHaveLength(0);
    expect(none.state().last_slots.hourly).toBe('2026-11-25T05:00:00.000Z');
    await none.timers.advance(MINUTE);
    expect(none.dispatched).toHaveLength(1);
    await none.stop();
  });

  it('after a kill, follows a run already handed out and never hands its slot out again', async () => {
    const slot = '2026-11-25T05:00:00.000Z';
    const base = { entry: 'hourly', slot, started_at: slot, prompt: 'do hourly', workdir: '/srv/work' };
    const initial: SchedulerState = {
      last_slots: { hourly: slot, other: slot },
      runs: [
        { ...base, id: `hourly@${slot}`, model: null, timeout_ms: null, queued: false, task: taskOf(7), placing: null },
        {
          ...base,
          entry: 'other',
          id: `other@${slot}`,
          model: null,
          timeout_ms: null,
          queued: false,
          task: null,
          placing: null,
        },
      ],
    };
    const schedule = [entry('hourly', '0 * * * *'), entry('other', '0 * * * *')];
    const run = harness(config({ schedule }), { start: Date.parse(slot) + 10 * MINUTE, initial });
    await run.timers.advance(0);
    expect(run.dispatched).toHaveLength(0);
    expect(run.history.get(`hourly@${slot}`)).toMatchObject({ state: 'completed', task: taskOf(7) });
    expect(run.history.get(`other@${slot}`)?.log[0]?.message).toContain('not run again');
    expect(run.state().runs).toEqual([]);
    await run.timers.advance(50 * MINUTE);
    expect(run.dispatched).toHaveLength(2);
    await run.stop();
  });

  it('after a kill between handing a run out and recording it, follows the task a worker took, once', async () => {
    const slot = '2026-11-25T05:00:00.000Z';
    const base = { slot, started_at: slot, prompt: 'do it', workdir: '/srv/work', model: null, timeout_ms: null };
    const taken = { ...taskOf(9), session_id: '6f1c2a9e-8b7d-4c3e-9a1b-2d3e4f5a6b7c' };
    const lost = '0b7e3c1a-5d2f-4e6a-8b9c-1d2e3f4a5b6c';
    const initial: SchedulerState = {
      last_slots: { hourly: slot, other: slot },
      runs: [
        { ...base, entry: 'hourly', id: `hourly@${slot}`, queued: false, task: null, placing: taken.session_id },
        { ...base, entry: 'other', id: `other@${slot}`, queued: false, task: null, placing: lost },
      ],
    };
    const schedule = [entry('hourly', '0 * * * *'), entry('other', '0 * * * *')];
    const run = harness(config({ schedule }), { start: Date.parse(slot) + 10 * MINUTE, initial, placed: taken });
    await run.timers.advance(0);
    expect(run.history.get(`hourly@${slot}`)).toMatchObject({ state: 'completed', task: taken });
    expect(run.history.get(`hourly@${slot}`)?.log.at(-2)?.message).toContain('(found after a restart)');
    // No worker has the other one: it is handed out once, in the session recorded for it.
    expect(run.dispatched).toEqual([expect.objectContaining({ prompt: 'do it', session_id: lost })]);
    expect(run.history.get(`other@${slot}`)).toMatchObject({ state: 'completed' });
    expect(run.state().runs).toEqual([]);
    await run.stop();
  });

  it('records a run that found no worker as failed, with the reason', async () => {
    const start = Date.parse('2026-11-25T00:00:00Z') - 1;
    const error = new AgencyError('no_worker', 'No worker to take the task after waiting 600 s: none was found.');
    const run = harness(config({ schedule: [entry('lonely', '0 * * * *')] }), {
      start,
      dispatchError: error,
      waits: 2,
    });
    await run.timers.advance(1);
    const lonely = run.history.get('lonely@2026-11-25T00:00:00.000Z');
    expect(lonely).toMatchObject({ state: 'failed' });
    expect(lonely?.log.map((line) => line.message)).toEqual([
      'due',
      'handing out (waiting up to 600 s for an idle worker)',
      'no idle worker; trying again in 0.3 s (w1: working)',
      'no idle worker; trying again in 0.5 s (w1: working)',
      expect.stringContaining('failed: No worker') as unknown,
    ]);
    expect(run.state().runs).toEqual([]);
    await run.stop();
  });
});

describe("the scheduler's labels", () => {
  it("asks each run's worker for its entry's labels; the director's own are the dispatch's to add", async () => {
    const start = Date.parse('2026-11-25T00:00:00Z') - 1;
    const cfg = config({
      labels: ['linux'],
      schedule: [entry('on-gpu', '0 * * * *', { labels: ['gpu', 'cuda', 'gpu'] }), entry('anywhere', '0 * * * *')],
    });
    const run = harness(cfg, { start });
    await run.timers.advance(1);
    const asked = Object.fromEntries(run.dispatched.map((request) => [request.prompt, request.labels]));
    expect(asked).toEqual({ 'do on-gpu': ['cuda', 'gpu'], 'do anywhere': undefined });
    expect(cfg.labels).toEqual(['linux']);
    await run.stop();
  });
});

describe('the scheduler config', () => {
  it.each([
    [{ schedule: [entry('a', '0 2 * *')] }, 'schedule.0.cron', 'must have 5 fields'],
    [{ schedule: [entry('a', '0 2 * * * *')] }, 'schedule.0.cron', 'must have 5 fields'],
    [{ schedule: [entry('a', '61 2 * * *')] }, 'schedule.0.cron', 'not a valid cron expression'],
    [{ schedule: [entry('a', '0 2 * * *', { timezone: 'Mars/Olympus' })] }, 'schedule.0.timezone', 'IANA'],
    [{ timezone: 'Nowhere' }, 'timezone', 'IANA'],
    [{ schedule: [entry('a', '* * * * *'), entry('a', '* * * * *')] }, 'schedule.1.name', 'used twice'],
    [{ schedule: [entry('a', '* * * * *', { workdir: 'relative' })] }, 'schedule.0.workdir', 'absolute'],
    [{ schedule: [entry('a', '* * * * *', { extra: 1 })] }, 'schedule.0', 'extra'],
    [{ overlap: 'stack' }, 'overlap', 'skip or queue'],
    [{ schedule: [entry('a', '* * * * *', { labels: ['GPU'] })] }, 'schedule.0.labels.0', 'must be a label'],
    [{ labels: 'gpu' }, 'labels', 'must be a list of labels'],
  ])('refuses %j at %s', (fields, path, message) => {
    const parsed = schedulerConfigSchema.safeParse({ type: 'scheduler', name: 'sched', ...fields });
    expect(parsed.success).toBe(false);
    const issue = parsed.error!.issues[0]!;
    expect(issue.path.join('.')).toBe(path);
    expect(JSON.stringify(parsed.error!.issues)).toContain(message);
  });
});
