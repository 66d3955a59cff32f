// The scheduler director's config (seed 004, "Scheduler example"): a schedule of named entries, each a 5-field cron
// expression, a prompt and a workdir, with an optional model, timeout and time zone.
import { Cron } from 'croner';
import { z } from 'zod';
import { directorConfigSchema } from '../../../config/director-config.ts';
import { durationSchema } from '../../../config/duration.ts';
import { labelsSchema } from '../../../config/labels.ts';

/** A valid IANA time zone, e.g. `Europe/Berlin` or `UTC`. */
export const timezoneSchema = z.string().refine(
  (zone) => {
    try {
      new Intl.DateTimeFormat('en', { timeZone: zone });
      return true;
    } catch {
      return false;
    }
  },
  { error: 'must be an IANA time zone, e.g. UTC, Europe/Berlin or America/New_York' },
);

/** A standard 5-field cron expression (`minute hour day-of-month month day-of-week`), checked with croner. */
export const cronSchema = z.string().superRefine((expression, context) => {
  const fields = expression.trim().split(/\s+/).length;
  if (fields !== 5) {
    context.addIssue({
      code: 'custom',
      message: `must have 5 fields (minute hour day month weekday), e.g. "0 2 * * *"; it has ${fields}`,
    });
    return;
  }
  const problem = cronProblem(expression);
  if (problem) context.addIssue({ code: 'custom', message: `is not a valid cron expression: ${problem}` });
});

/** Why croner refuses `expression`, or undefined when it takes it. */
function cronProblem(expression: string): string | undefined {
  try {
    new Cron(expression, { paused: true, mode: '5-part' });
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

/** One scheduled task. */
export const scheduleEntrySchema = z
  .object({
    /** Unique in the schedule; names the runs in the history. */
    name: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/, 'must be letters, digits and . _ - (up to 100)'),
    cron: cronSchema,
    prompt: z.string().min(1).max(200_000),
    /** The directory the task works in (the worker must allow it in sandbox.read_write_paths); locked per run. */
    workdir: z.string().refine((path) => path.startsWith('/') && !path.includes('\0'), 'must be an absolute path'),
    model: z.string().min(1).max(200).optional(),
    /** How long a run may take on its worker. */
    timeout: durationSchema({ min: 1000, max: 86_400_000 }).optional(),
    /** The time zone of this entry's cron expression, instead of the schedule's. */
    timezone: timezoneSchema.optional(),
    /** Labels this entry's worker must have, besides the director's `labels:` (queue mode). */
    labels: labelsSchema.optional(),
  })
  .strict();

/** A whole schedule: entries with unique names. */
export const scheduleSchema = z.array(scheduleEntrySchema).superRefine((entries, context) => {
  const seen = new Set<string>();
  entries.forEach((entry, index) => {
    if (seen.has(entry.name))
      context.addIssue({ code: 'custom', path: [index, 'name'], message: `"${entry.name}" is used twice` });
    seen.add(entry.name);
  });
});

/** `directors/<name>/config.yaml` of a scheduler. */
export const schedulerConfigSchema = directorConfigSchema({
  /** The time zone of the cron expressions. @default 'UTC' */
  timezone: timezoneSchema.default('UTC'),
  /** A slot that comes while the entry's previous run still goes: `skip` it (recorded), or `queue` one run. */
  overlap: z.enum(['skip', 'queue'], { error: 'must be skip or queue' }).default('skip'),
  /** Slots missed while the director was down: `latest` runs the most recent one once, `none` runs none. */
  catch_up: z.enum(['latest', 'none'], { error: 'must be latest or none' }).default('latest'),
  /** How long a run waits for an idle worker (and its workspace lock), retrying with backoff, before it fails. */
  worker_wait: durationSchema({ min: 0, max: 86_400_000 }).default(600_000),
  schedule: scheduleSchema.default([]),
});

/** A scheduler's config, checked. */
export type SchedulerConfig = z.output<typeof schedulerConfigSchema>;
/** One schedule entry, checked (its timeout in ms). */
export type ScheduleEntry = z.output<typeof scheduleEntrySchema>;
