import { lstat, mkdir, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { TaskAction } from '../api/schemas.ts';
import { AgencyError } from '../core/errors.ts';
import { createIdGenerator, type IdGenerator, isId } from '../core/ids.ts';
import type { EventFrame } from '../task/contracts/events.ts';
import type { AgencyRoot } from '../config/agency-root.ts';
import { workflowMarkerFile } from '../compose/workflow/workflow-marker.ts';
import { createJournalHub, type JournalHub } from './journal-hub.ts';
import { createRunQueue, type QueuedRun, type RunQueue } from './run-queue.ts';
import { type ServiceLogger, silentLogger } from './service-logger.ts';
import { DEFAULT_INTAKE_LIMITS, type IntakeLimits } from './task-intake.ts';
import { type LiveView, readTaskRecord, statusOf, type TaskRecord, writeTaskRequest } from './task-records.ts';
import type { TaskServiceOptions } from './task-service.ts';
import type { RoleRegistry } from '../roles/registry.ts';

/** A listener of every journaled frame of the service's runs. */
export type FrameListener = (frame: EventFrame, taskId: string) => void;

/**
 * What every operation of the task service works with: the data root, the run queue and journal hub of this process,
 * the clock, ids and logger, and the settings clients are held to. Internal: the port is `TaskService`.
 */
export type ServiceCore = {
  root: AgencyRoot;
  queue: RunQueue;
  hub: JournalHub;
  listeners: Set<FrameListener>;
  now: () => number;
  newId: IdGenerator;
  logger: ServiceLogger;
  limits: IntakeLimits;
  models: readonly string[];
  roles: RoleRegistry | undefined;
  approvalModes: ReadonlyArray<'file' | 'auto'>;
  maxConcurrentRuns: number;
};

/** Fills in the defaults of the options, makes the data root's folders, and opens the run queue. */
export async function openServiceCore(options: TaskServiceOptions): Promise<ServiceCore> {
  const { root, runnerFor, models } = options;
  if (models.length === 0) throw new AgencyError('invalid_config', 'A task service needs at least one model');
  const now = options.now ?? Date.now;
  const logger = options.logger ?? silentLogger;
  const maxConcurrentRuns = options.maxConcurrentRuns ?? 4;
  const listeners = new Set<FrameListener>();
  await mkdir(root.tasks, { recursive: true });
  await mkdir(root.server, { recursive: true, mode: 0o700 });
  const queue = createRunQueue({
    runnerFor,
    maxConcurrent: maxConcurrentRuns,
    logger,
    onFrame: (frame, taskId) => {
      for (const listener of listeners) listener(frame, taskId);
    },
    onStartFailed: recordStartFailure,
  });
  return {
    root,
    queue,
    hub: createJournalHub(),
    listeners,
    now,
    newId: options.newId ?? createIdGenerator({ now }),
    logger,
    limits: { ...DEFAULT_INTAKE_LIMITS, ...options.limits },
    models,
    roles: options.roles,
    approvalModes: options.approvalModes ?? ['file'],
    maxConcurrentRuns,
  };
}

// A queued start that could not run leaves why in the task's request record, so the task reads as failed.
async function recordStartFailure(run: QueuedRun, error: unknown): Promise<void> {
  if (run.kind !== 'start') return;
  const record = await readTaskRecord(run.root, run.id);
  if (!record.request) return;
  const failure = AgencyError.from(error);
  await writeTaskRequest(run.root, {
    ...record.request,
    start_error: { code: failure.code, message: failure.message },
  });
}

/** The task root of a task id, refusing anything that is not one. */
export function taskRootOf(core: ServiceCore, id: string): string {
  if (!isId(id, 'task'))
    throw new AgencyError('invalid_argument', `"${String(id).slice(0, 80)}" is not a task id (task_ and a ULID)`, {
      details: { field: 'id' },
    });
  return join(core.root.tasks, id);
}

/** The ids of the tasks under the data root, oldest first. */
export async function taskIdsOf(core: ServiceCore): Promise<string[]> {
  return (await readdir(core.root.tasks).catch((): string[] => [])).filter((name) => isId(name, 'task')).sort();
}

/** What the queue knows of a task. */
export function liveOf(core: ServiceCore, id: string): LiveView {
  return { queued: core.queue.isQueued(id), live: core.queue.isLive(id), retrying: core.queue.isRetrying(id) };
}

/**
 * @throws AgencyError `task_not_found` when the data root has no such task (a governed task has `task/`, a workflow
 * run `workflow.json`); what `readTaskRecord` throws for a workflow marker it refuses.
 */
export async function recordOf(core: ServiceCore, id: string): Promise<TaskRecord> {
  const taskRoot = taskRootOf(core, id);
  const found =
    (await readdir(join(taskRoot, 'task')).catch(() => undefined)) ??
    (await lstat(workflowMarkerFile(taskRoot)).catch(() => undefined));
  if (!found)
    throw new AgencyError('task_not_found', `Task ${id} not found (GET /agent/tasks lists the tasks)`, {
      details: { task_id: id },
    });
  return readTaskRecord(taskRoot, id);
}

/** What an operation on a task answers: the task's status now, and what was done. */
export function actionOf(core: ServiceCore, id: string, record: TaskRecord, message: string): TaskAction {
  return { task_id: id, status: statusOf(record, liveOf(core, id)), message };
}

/** Queues the start of a task from its request record. */
export function enqueueStart(core: ServiceCore, id: string, record: TaskRecord): void {
  core.queue.enqueue({ kind: 'start', id, root: record.paths.root, spec: record.request!.spec });
}
