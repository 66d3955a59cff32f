// Where a director's `TaskDispatch` is chosen: the queue (src/fleet/queue/, loaded on first use) when
// AGENCY_DATABASE_URL or the config's `database:` is set, discovery and HTTP otherwise.
import { type DatabaseKey, fleetSettingsFrom } from '../queue/settings.ts';
import { createLocalDispatch, type LocalDispatchOptions } from './local-dispatch.ts';
import type { TaskDispatch } from './task-dispatch.ts';

/**
 * The dispatch of this process: with `AGENCY_DATABASE_URL` in `env` (or `database:` in `config`), tasks go through
 * the fleet's queue to the executor named by `AGENCY_FLEET_EXECUTOR`, each requiring `config.labels` besides its own
 * (the database opened and migrated on the first call); otherwise {@link createLocalDispatch} with `local`, which
 * refuses a task that requires labels.
 * @throws AgencyError `invalid_config` at once when a fleet variable (or the key) is malformed.
 */
export function createFleetDispatch(
  local: LocalDispatchOptions,
  env: NodeJS.ProcessEnv = process.env,
  config?: DatabaseKey & { labels?: readonly string[] },
): TaskDispatch {
  const settings = fleetSettingsFrom(env, config);
  if (!settings) return withLabels(createLocalDispatch(local), config?.labels ?? []);
  let opened: Promise<TaskDispatch> | undefined;
  const queue = () =>
    (opened ??= (async () => {
      const { openFleetDatabase, createQueueDispatch } = await import('../queue/index.ts');
      const db = openFleetDatabase(settings.databaseUrl, { source: settings.databaseSource });
      await db.migrate();
      return createQueueDispatch({
        db,
        executor: settings.executor,
        rerunOnLoss: settings.rerunOnLoss,
        labels: config?.labels ?? [],
      });
    })().catch((error: unknown) => {
      opened = undefined;
      throw error;
    }));
  return {
    dispatch: async (request, options) => (await queue()).dispatch(request, options),
    settle: async (task, options) => (await queue()).settle(task, options),
    continue: async (task, prompt, options) => (await queue()).continue(task, prompt, options),
    end: async (task, options) => (await queue()).end(task, options),
    cancel: async (task, options) => (await queue()).cancel(task, options),
    find: async (placement, options) => (await queue()).find?.(placement, options),
  };
}

// A dispatch whose every task requires `labels` besides its own.
function withLabels(dispatch: TaskDispatch, labels: readonly string[]): TaskDispatch {
  if (labels.length === 0) return dispatch;
  return {
    ...dispatch,
    dispatch: (request, options) =>
      dispatch.dispatch({ ...request, labels: [...labels, ...(request.labels ?? [])] }, options),
  };
}
