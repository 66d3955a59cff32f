// The scheduler director: fires each schedule entry's slots, one run per slot, never two runs of one entry at once.
import type { Cron } from 'croner';
import { errorMessage } from '../../../core/errors.ts';
import { previewOf } from '../../worker/task-record.ts';
import type { Director } from '../director.ts';
import type { ScheduleEntry, SchedulerConfig } from './schedule-config.ts';
import { executeRun, forget, newEntry, type RunContext } from './scheduled-run.ts';
import type { ScheduledRun } from './scheduler-state.ts';
import { cronOf, dueSlots, nextSlot } from './slots.ts';

// The longest sleep between two looks at the clock, so a clock set forward is noticed within a minute.
const MAX_SLEEP_MS = 60_000;

/** A running scheduler: a director whose schedule can be replaced while it runs. */
export type Scheduler = Omit<Director, 'routes'> & {
  /** The schedule now, with each entry's next slot. */
  schedule(): { config: SchedulerConfig; next: Record<string, string | null> };
  /** Applies a new config (from `PUT /schedule` or `POST /schedule/task`) at once, without a restart. */
  apply(config: SchedulerConfig): void;
};

/**
 * Creates the scheduler of `context`. On `run()` it first settles the runs `state.json` says were in flight (a run
 * whose session was recorded for handing out is looked for on the workers and followed, or handed out once if no
 * worker has it; one that got no further is recorded as failed, not run again), then handles each entry's due slots: the
 * latest due slot runs, older ones (the director was down, or the machine slept) are counted as missed — at start-up
 * they all are when `catch_up: none`. A slot whose entry still runs is skipped (`overlap: skip`) or queued, one deep.
 */
export function createScheduler(context: RunContext): Scheduler {
  let config = context.config;
  let crons = compile(config);
  const inFlight = new Map<string, { run: ScheduledRun; done: Promise<void> }>();
  const queued = new Map<string, ScheduledRun>();
  let wake: (() => void) | undefined;
  const now = () => context.timers.now();

  const launch = (run: ScheduledRun) => {
    const done = executeRun(context, run, config.worker_wait)
      .catch((error: unknown) => context.log.error(`scheduled run ${run.id}: ${errorMessage(error)}`))
      .finally(() => {
        inFlight.delete(run.entry);
        const next = queued.get(run.entry);
        if (next && !context.stopping.aborted) {
          queued.delete(run.entry);
          launch(next);
        }
      });
    inFlight.set(run.entry, { run, done });
  };

  const fire = async (entry: ScheduleEntry, slot: number) => {
    const run = runOf(entry, slot, now(), inFlight.has(entry.name));
    const busy = inFlight.get(entry.name);
    if (busy && (config.overlap === 'skip' || queued.has(entry.name))) {
      await markSlot(entry.name, slot);
      const why = `skipped: run ${busy.run.id} still goes${config.overlap === 'queue' ? ' and one is queued' : ''}`;
      await context.history.save(newEntry(run, 'skipped', why, now()));
      context.log.info(`${entry.name}: slot ${run.slot} ${why}`);
      return;
    }
    await context.state.update((state) => ({
      last_slots: { ...state.last_slots, [entry.name]: run.slot },
      runs: [...state.runs, run],
    }));
    await context.history.save(newEntry(run, 'waiting', busy ? `queued behind ${busy.run.id}` : 'due', now()));
    if (busy) queued.set(entry.name, run);
    else launch(run);
  };

  const markSlot = (name: string, slot: number) =>
    context.state.update((state) => ({ ...state, last_slots: { ...state.last_slots, [name]: iso(slot) } }));

  // Handles every entry's due slots now.
  const tick = async () => {
    const at = now();
    for (const entry of config.schedule) {
      const last = context.state.get().last_slots[entry.name];
      if (last === undefined) {
        await markSlot(entry.name, at);
        continue;
      }
      const { latest, missed } = dueSlots(crons.get(entry.name)!, Date.parse(last), at);
      if (missed > 0) context.log.warn(`${entry.name}: ${missed} slot(s) missed (the director was down or late)`);
      if (latest !== undefined) await fire(entry, latest);
    }
  };

  return {
    async run() {
      await resume(context, launch, queued);
      if (config.catch_up === 'none') await skipMissed(context, config, crons);
      while (!context.stopping.aborted) {
        await tick();
        await sleepUntil(context, nextDue(crons, now()), (resolve) => (wake = resolve));
      }
      await Promise.all([...inFlight.values()].map((one) => one.done));
    },
    status: () => statusOf(config, inFlight),
    schedule: () => ({ config, next: nextRuns(config, crons, now()) }),
    apply(next) {
      config = next;
      crons = compile(next);
      wake?.();
    },
  };
}

// Waits until `until` (at most a minute), a new schedule (`onWake` gets the function that ends the wait), or the stop.
async function sleepUntil(
  context: RunContext,
  until: number | undefined,
  onWake: (resolve: (() => void) | undefined) => void,
): Promise<void> {
  if (context.stopping.aborted) return;
  const delay = Math.max(0, Math.min(MAX_SLEEP_MS, (until ?? Number.POSITIVE_INFINITY) - context.timers.now()));
  await new Promise<void>((resolve) => {
    const done = () => {
      context.timers.clearTimeout(timer);
      context.stopping.removeEventListener('abort', done);
      onWake(undefined);
      resolve();
    };
    const timer = context.timers.setTimeout(done, delay);
    context.stopping.addEventListener('abort', done, { once: true });
    onWake(done);
  });
}

function statusOf(config: SchedulerConfig, inFlight: Map<string, { run: ScheduledRun }>) {
  const current = [...inFlight.values()][0]?.run;
  return {
    state: inFlight.size > 0 ? ('working' as const) : ('idle' as const),
    current_task: current
      ? { id: current.id, started_at: current.started_at, prompt_preview: previewOf(current.prompt) }
      : null,
    config: { schedule_entries: config.schedule.length, timezone: config.timezone, overlap: config.overlap },
  };
}

function nextRuns(config: SchedulerConfig, crons: Map<string, Cron>, now: number): Record<string, string | null> {
  return Object.fromEntries(
    config.schedule.map((entry) => {
      const slot = nextSlot(crons.get(entry.name)!, now);
      return [entry.name, slot === undefined ? null : iso(slot)];
    }),
  );
}

function compile(config: SchedulerConfig): Map<string, Cron> {
  return new Map(config.schedule.map((entry) => [entry.name, cronOf(entry.cron, entry.timezone ?? config.timezone)]));
}

function nextDue(crons: Map<string, Cron>, after: number): number | undefined {
  const slots = [...crons.values()].map((cron) => nextSlot(cron, after)).filter((slot) => slot !== undefined);
  return slots.length > 0 ? Math.min(...slots) : undefined;
}

function runOf(entry: ScheduleEntry, slot: number, now: number, queued: boolean): ScheduledRun {
  return {
    id: `${entry.name}@${iso(slot)}`,
    entry: entry.name,
    slot: iso(slot),
    started_at: iso(now),
    prompt: entry.prompt,
    workdir: entry.workdir,
    model: entry.model ?? null,
    timeout_ms: entry.timeout ?? null,
    ...(entry.labels?.length ? { labels: entry.labels } : {}),
    queued,
    task: null,
    placing: null,
  };
}

// The runs a previous process left in state.json: a queued one waits again, one handed out (or whose session was
// recorded for handing out: it is looked for on the workers first) is followed to its end, one with neither is
// recorded as failed rather than run again.
async function resume(
  context: RunContext,
  launch: (run: ScheduledRun) => void,
  queued: Map<string, ScheduledRun>,
): Promise<void> {
  for (const run of context.state.get().runs) {
    if (run.queued && context.state.get().runs.some((one) => one.entry === run.entry && !one.queued)) {
      queued.set(run.entry, run);
    } else if (run.task || run.queued || run.placing) {
      const how = run.task ? ` (task ${run.task.task_id})` : run.placing ? ` (session ${run.placing})` : '';
      context.log.info(`resuming scheduled run ${run.id}${how}`);
      launch(run);
    } else {
      const why =
        'failed: the director stopped while handing the task out; not run again, so the slot never runs twice';
      await context.history.save(newEntry(run, 'failed', why, context.timers.now()));
      context.log.warn(`scheduled run ${run.id} ${why}`);
      await forget(context, run);
    }
  }
}

// `catch_up: none`: the slots that came while the director was down are recorded as handled, and not run.
async function skipMissed(context: RunContext, config: SchedulerConfig, crons: Map<string, Cron>): Promise<void> {
  const at = context.timers.now();
  for (const entry of config.schedule) {
    const last = context.state.get().last_slots[entry.name];
    if (last === undefined) continue;
    const { latest, missed } = dueSlots(crons.get(entry.name)!, Date.parse(last), at);
    if (latest === undefined) continue;
    context.log.info(`${entry.name}: ${missed + 1} slot(s) missed while down, not run (catch_up: none)`);
    await context.state.update((state) => ({
      ...state,
      last_slots: { ...state.last_slots, [entry.name]: iso(latest) },
    }));
  }
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}
