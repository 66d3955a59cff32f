// The scheduler's own routes (seed 004, phase 5): `GET /schedule`, `PUT /schedule`, `POST /schedule/task`.
import { z } from 'zod';
import type { Route } from '../../../http/route.ts';
import { directorErrors } from '../host/director-routes.ts';
import { type ScheduleEntry, scheduleEntrySchema, scheduleSchema } from './schedule-config.ts';
import { createScheduleFile, entryForYaml, nameTaken } from './schedule-file.ts';
import type { Scheduler } from './scheduler.ts';

const putBodySchema = z.object({ schedule: scheduleSchema }).strict();

/** `GET /schedule`. */
export const scheduleAnswerSchema = z
  .object({
    timezone: z.string(),
    overlap: z.enum(['skip', 'queue']),
    catch_up: z.enum(['latest', 'none']),
    schedule: z.array(z.record(z.string(), z.unknown())),
    /** Each entry's next slot (ISO 8601), by name. */
    next_runs: z.record(z.string(), z.string().nullable()),
  })
  .strict();

/** The scheduler's routes; changes go to `file` (its config.yaml) and apply at once. */
export function scheduleRoutes(scheduler: Scheduler, file: string): Route[] {
  const schedule = createScheduleFile(file);
  const answer = () => {
    const { config, next } = scheduler.schedule();
    const { timezone, overlap, catch_up } = config;
    return { timezone, overlap, catch_up, schedule: config.schedule.map(entryForYaml), next_runs: next };
  };
  const change = async (edit: (entries: ScheduleEntry[]) => ScheduleEntry[]) => {
    scheduler.apply(await schedule.change(edit));
    return answer();
  };
  return [
    {
      method: 'get',
      path: '/schedule',
      summary: 'The schedule, its time zone and policies, and each entry’s next run',
      tag: 'schedule',
      responses: { 200: { description: 'the schedule', schema: scheduleAnswerSchema }, ...directorErrors() },
      handler: async (c) => c.json(answer()),
    },
    {
      method: 'put',
      path: '/schedule',
      summary: 'Replace the whole schedule ({"schedule": [...]}); written to config.yaml and applied at once',
      tag: 'schedule',
      body: { schema: putBodySchema, contentType: 'application/json' },
      responses: {
        200: { description: 'the new schedule', schema: scheduleAnswerSchema },
        ...directorErrors(400, 413, 415),
      },
      handler: async (c, { body }) => c.json(await change(() => (body as z.output<typeof putBodySchema>).schedule)),
    },
    {
      method: 'post',
      path: '/schedule/task',
      summary: 'Add one entry to the schedule; written to config.yaml and applied at once',
      tag: 'schedule',
      body: { schema: scheduleEntrySchema, contentType: 'application/json' },
      responses: {
        201: { description: 'the new schedule', schema: scheduleAnswerSchema },
        ...directorErrors(400, 409, 413, 415),
      },
      handler: async (c, { body }) => {
        const entry = body as ScheduleEntry;
        const added = await change((entries) => {
          if (entries.some((one) => one.name === entry.name)) throw nameTaken(entry.name);
          return [...entries, entry];
        });
        return c.json(added, 201);
      },
    },
  ];
}
