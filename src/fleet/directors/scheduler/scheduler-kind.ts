// The scheduler director as the host loads it (`type: scheduler`).
import { defineDirectorKind } from '../director.ts';
import { schedulerConfigSchema } from './schedule-config.ts';
import { scheduleRoutes } from './schedule-routes.ts';
import { createScheduler } from './scheduler.ts';
import { schedulerStateSchema } from './scheduler-state.ts';

/** The scheduler kind: cron entries handed to workers, `GET`/`PUT /schedule` and `POST /schedule/task`. */
export const directorKind = defineDirectorKind({
  type: 'scheduler',
  configSchema: schedulerConfigSchema,
  stateSchema: schedulerStateSchema,
  initialState: () => ({ last_slots: {}, runs: [] }),
  interfaces: ['configurable'],
  create(context) {
    const scheduler = createScheduler(context);
    return {
      run: () => scheduler.run(),
      status: () => scheduler.status(),
      routes: scheduleRoutes(scheduler, context.files.config),
    };
  },
});
