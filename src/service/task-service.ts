import { mkdir, readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type {
  DecisionRequest,
  InboxItem,
  StartTaskRequest,
  TaskAction,
  TaskDetail,
  TaskFilter,
  TaskList,
  TaskResult,
  TaskSummary,
  UploadResult,
} from '../api/schemas.ts';
import { AgencyError } from '../core/errors.ts';
import { createIdGenerator, type IdGenerator, isId } from '../core/ids.ts';
import { createFileBroker } from '../task/approvals/file-broker.ts';
import type { ApprovalDecision } from '../task/contracts/approvals.ts';
import type { EventFrame } from '../task/contracts/events.ts';
import { FINAL_STOP_REASONS } from '../task/contracts/state.ts';
import type { ResultView } from '../task/result.ts';
import { lastSeqOfType } from '../task/journal/read-journal.ts';
import type { Runner } from '../task/runner.ts';
import type { Budgets } from '../task/task-spec.ts';
import { writeFileAtomic } from '../task/fs/atomic-write.ts';
import type { AgencyRoot } from '../config/agency-root.ts';
import { decideRequest, holdsRequest, inboxItemsOf } from './approval-inbox.ts';
import { openDeliverable, type OpenedDeliverable } from './deliverable-file.ts';
import { createJournalHub, type JournalHub } from './journal-hub.ts';
import { createRunQueue } from './run-queue.ts';
import { type ServiceLogger, silentLogger } from './service-logger.ts';
import {
  checkUploadName,
  createTaskFolder,
  DEFAULT_INTAKE_LIMITS,
  type IncomingFile,
  inlineFiles,
  type IntakeLimits,
  writeTaskFile,
} from './task-intake.ts';
import {
  goalOf,
  type LiveView,
  readTaskRecord,
  statusOf,
  summaryOf,
  TASK_REQUEST_VERSION,
  type TaskRecord,
  taskSpecOf,
  writeTaskRequest,
} from './task-records.ts';
import { detailOf, resultOf } from './task-views.ts';

/** Who asks: the name the service signs decisions and journal entries with. */
export type Principal = { name: string };

/** Options for {@link createTaskService}. */
export type TaskServiceOptions = {
  root: AgencyRoot;
  /**
   * The runner for one task root: the operator's tools, policy and prices, narrowed by the task's own
   * `task/agency.json` exactly as `agency run` narrows them, so a task served here runs as it would from the CLI.
   */
  runnerFor(taskRoot: string): Promise<Runner>;
  /** The models clients may name; the first is the default. A model spec is never taken from a client unchecked. */
  models: readonly string[];
  /** The approval modes clients may ask for. @default ['file'] */
  approvalModes?: ReadonlyArray<'file' | 'auto'>;
  /** @default 4 */
  maxConcurrentRuns?: number;
  limits?: Partial<IntakeLimits>;
  /** Resume runs that were in flight when the service last stopped (interrupted, or stopped by its shutdown). @default true */
  resumeOnOpen?: boolean;
  now?: () => number;
  newId?: IdGenerator;
  logger?: ServiceLogger;
};

/** A filter and a page of the task list. */
export type ListQuery = { filter?: readonly TaskFilter[]; cursor?: string; limit?: number };

/**
 * The operations on governed tasks and their approvals, shared by the HTTP API, the MCP server and the CLI's
 * `--server` mode. Tasks live on disk under the data root, one task root per task, so a task started here has the
 * same paper trail as one started from the CLI, and the CLI works on it too.
 */
export type TaskService = {
  /** Creates a task from a request and queues its run (or holds it for uploads). */
  start(request: StartTaskRequest, by: Principal): Promise<TaskAction>;
  /** Starts a task and waits for its run to end. */
  startAndWait(request: StartTaskRequest, by: Principal, view: ResultView): Promise<TaskResult>;
  /** Starts a task held for uploads. */
  release(id: string, by: Principal): Promise<TaskAction>;
  list(query?: ListQuery): Promise<TaskList>;
  get(id: string): Promise<TaskDetail>;
  summary(id: string): Promise<TaskSummary>;
  /** The task's journal frames after `after`, then new ones as they come, until its run ends or `signal` aborts. */
  events(id: string, options: { after?: number; signal?: AbortSignal }): Promise<AsyncIterable<EventFrame>>;
  result(id: string, view: ResultView): Promise<TaskResult>;
  stop(id: string, reason: 'stopped' | 'cancelled', by: Principal): Promise<TaskAction>;
  resume(id: string, budgets: Budgets | undefined, by: Principal): Promise<TaskAction>;
  upload(id: string, files: readonly IncomingFile[]): Promise<UploadResult>;
  deliverable(id: string, path: string): Promise<OpenedDeliverable>;
  inbox(): Promise<InboxItem[]>;
  decide(requestId: string, body: DecisionRequest, by: Principal): Promise<ApprovalDecision>;
  /** Models, approval modes and limits, for clients to show. */
  readonly settings: {
    models: readonly string[];
    approvalModes: ReadonlyArray<'file' | 'auto'>;
    maxConcurrentRuns: number;
    limits: IntakeLimits;
  };
  /** Subscribes to every journaled frame of the runs of this service. */
  onFrame(listener: (frame: EventFrame, taskId: string) => void): () => void;
  /** Stops every run at its next boundary, remembering them so the next `open` resumes them, and waits. */
  close(): Promise<void>;
};

const IN_FLIGHT = 'in-flight.json';

/**
 * Opens the service over a data root: tasks queued or held before a restart are found again, and runs that were in
 * flight are resumed (unless `resumeOnOpen` is false, in which case they are listed as interrupted, with a resume
 * action).
 */
export async function createTaskService(options: TaskServiceOptions): Promise<TaskService> {
  const { root, runnerFor, models } = options;
  if (models.length === 0) throw new AgencyError('invalid_config', 'A task service needs at least one model');
  const now = options.now ?? Date.now;
  const newId = options.newId ?? createIdGenerator({ now });
  const logger = options.logger ?? silentLogger;
  const approvalModes = options.approvalModes ?? ['file'];
  const maxConcurrentRuns = options.maxConcurrentRuns ?? 4;
  const limits: IntakeLimits = { ...DEFAULT_INTAKE_LIMITS, ...options.limits };
  const listeners = new Set<(frame: EventFrame, taskId: string) => void>();
  const hub = createJournalHub();
  await mkdir(root.tasks, { recursive: true });
  await mkdir(root.server, { recursive: true, mode: 0o700 });

  const queue = createRunQueue({
    runnerFor,
    maxConcurrent: maxConcurrentRuns,
    logger,
    onFrame: (frame, taskId) => {
      for (const listener of listeners) listener(frame, taskId);
    },
    onStartFailed: async (run, error) => {
      if (run.kind !== 'start') return;
      const record = await readTaskRecord(run.root, run.id);
      if (!record.request) return;
      const failure = AgencyError.from(error);
      await writeTaskRequest(run.root, {
        ...record.request,
        start_error: { code: failure.code, message: failure.message },
      });
    },
  });

  const rootOf = (id: string): string => {
    if (!isId(id, 'task'))
      throw new AgencyError('invalid_argument', `"${String(id).slice(0, 80)}" is not a task id (task_ and a ULID)`, {
        details: { field: 'id' },
      });
    return join(root.tasks, id);
  };
  const liveOf = (id: string): LiveView => ({
    queued: queue.isQueued(id),
    live: queue.isLive(id),
    retrying: queue.isRetrying(id),
  });
  const recordOf = async (id: string): Promise<TaskRecord> => {
    const taskRoot = rootOf(id);
    if (!(await readdir(join(taskRoot, 'task')).catch(() => undefined)))
      throw new AgencyError('task_not_found', `Task ${id} not found (GET /agent/tasks lists the tasks)`, {
        details: { task_id: id },
      });
    return readTaskRecord(taskRoot, id);
  };
  const action = (id: string, record: TaskRecord, message: string): TaskAction => ({
    task_id: id,
    status: statusOf(record, liveOf(id)),
    message,
  });

  const checkRequest = (request: StartTaskRequest): string => {
    const model = request.model ?? models[0]!;
    if (!models.includes(model))
      throw new AgencyError(
        'invalid_argument',
        `model: "${model.slice(0, 200)}" is not a model this server runs; allowed: ${models.join(', ')}`,
        { details: { field: 'model', allowed: [...models] } },
      );
    const mode = request.approvals?.mode ?? 'file';
    if (!approvalModes.includes(mode))
      throw new AgencyError(
        'invalid_argument',
        `approvals.mode: "${mode}" is not allowed on this server; allowed: ${approvalModes.join(', ')}`,
        { details: { field: 'approvals.mode', allowed: [...approvalModes] } },
      );
    return model;
  };

  const enqueueStart = (id: string, record: TaskRecord) => {
    const request = record.request!;
    queue.enqueue({ kind: 'start', id, root: record.paths.root, spec: request.spec });
  };

  const service: TaskService = {
    settings: { models, approvalModes, maxConcurrentRuns, limits },

    async start(request, by) {
      const model = checkRequest(request);
      const files = inlineFiles(request, limits);
      const id = newId('task');
      const taskRoot = rootOf(id);
      await createTaskFolder(taskRoot, request.brief, files);
      const spec = taskSpecOf(request, model);
      await writeTaskRequest(taskRoot, {
        version: TASK_REQUEST_VERSION,
        task_id: id,
        created_at: new Date(now()).toISOString(),
        created_by: by.name,
        hold: request.hold === true,
        model,
        goal: goalOf(request.brief, request.goal),
        spec,
        start_error: null,
      });
      const record = await readTaskRecord(taskRoot, id);
      if (!request.hold) enqueueStart(id, record);
      logger.info({ task_id: id, by: by.name, hold: request.hold === true }, 'task created');
      return action(id, record, request.hold ? 'Held: upload files, then start it' : 'Queued');
    },

    async startAndWait(request, by, view) {
      const started = await service.start({ ...request, hold: false }, by);
      await queue.settled(started.task_id);
      return service.result(started.task_id, view);
    },

    async release(id, by) {
      const record = await recordOf(id);
      if (!record.request?.hold || record.spec)
        throw new AgencyError('task_state_conflict', `Task ${id} is not held: it was started already`, {
          details: { task_id: id, status: statusOf(record, liveOf(id)) },
        });
      await writeTaskRequest(record.paths.root, { ...record.request, hold: false });
      const released = await readTaskRecord(record.paths.root, id);
      enqueueStart(id, released);
      logger.info({ task_id: id, by: by.name }, 'task released');
      return action(id, released, 'Queued');
    },

    async list({ filter = [], cursor, limit = 20 } = {}) {
      if (!Number.isInteger(limit) || limit < 1 || limit > 100)
        throw new AgencyError('invalid_argument', 'limit: must be an integer from 1 to 100', {
          details: { field: 'limit' },
        });
      if (cursor !== undefined && !isId(cursor, 'task'))
        throw new AgencyError('invalid_argument', 'cursor: not a cursor this server gave', {
          details: { field: 'cursor' },
        });
      const ids = (await readdir(root.tasks).catch((): string[] => []))
        .filter((name) => isId(name, 'task') && (cursor === undefined || name < cursor))
        .sort()
        .reverse();
      const items: TaskSummary[] = [];
      let last: string | undefined;
      for (const id of ids) {
        if (items.length === limit) break;
        last = id;
        const summary = await summaryOf(await readTaskRecord(join(root.tasks, id), id), liveOf(id)).catch(
          () => undefined,
        );
        if (summary && matches(summary, filter)) items.push(summary);
      }
      const more = last !== undefined && ids.indexOf(last) < ids.length - 1 && items.length === limit;
      return { items, next_cursor: more ? (last ?? null) : null };
    },

    get: async (id) => detailOf(await recordOf(id), liveOf(id)),
    summary: async (id) => summaryOf(await recordOf(id), liveOf(id)),

    async events(id, { after = 0, signal }) {
      const record = await recordOf(id);
      if (!Number.isInteger(after) || after < 0)
        throw new AgencyError('invalid_argument', 'after: must be a non-negative integer (a seq)', {
          details: { field: 'after' },
        });
      const lastFinish = await lastSeqOfType(record.paths.events, 'finish');
      // Asked after the journal's end was read: where the frames of the run live here begin. Its finish is the first
      // at or after that, whether or not it is on file yet, and even while the run still holds the task as it lets go.
      const since = queue.isQueued(id) ? undefined : queue.liveSince(id);
      const active = () => queue.isQueued(id) || queue.isLive(id);
      // A run in progress ends with a finish still to come; a finished one with the last finish on file.
      const endAt = since ?? (active() || record.owner?.alive ? lastFinish + 1 : lastFinish);
      // The stream ends once the run has let go of the task, so a client that saw it end can resume the task.
      const run = { resumeQueued: () => queue.isQueued(id), settled: () => queue.settled(id) };
      if (endAt > 0 && lastFinish >= endAt && after >= lastFinish) {
        await run.settled();
        return (async function* () {})();
      }
      return followUntilEnd(hub, record.paths.events, after, signal, endAt, run);
    },

    result: async (id, view) => resultOf(await recordOf(id), view),

    async stop(id, reason, by) {
      const record = await recordOf(id);
      if (queue.dequeue(id)) {
        if (record.request && !record.spec)
          await writeTaskRequest(record.paths.root, { ...record.request, hold: true });
        logger.info({ task_id: id, by: by.name }, 'queued run taken out of the queue');
        return action(id, await readTaskRecord(record.paths.root, id), 'Taken out of the queue before it ran');
      }
      if (queue.stop(id, reason)) {
        logger.info({ task_id: id, by: by.name, reason }, 'stop asked');
        return action(id, record, `Stopping (${reason}) within a second`);
      }
      if (record.owner?.alive) {
        // Run by another process (the CLI): the STOP file reaches it.
        await record.files.write(
          record.paths.stop,
          `stop requested by ${by.name} at ${new Date(now()).toISOString()}\n`,
        );
        return action(id, record, 'Asked the process running it to stop (progress/STOP)');
      }
      throw new AgencyError('task_state_conflict', `Task ${id} is not running (${statusOf(record, liveOf(id))})`, {
        details: { task_id: id, status: statusOf(record, liveOf(id)) },
      });
    },

    async resume(id, budgets, by) {
      const record = await recordOf(id);
      const status = statusOf(record, liveOf(id));
      const reason = record.state?.finish_reason ?? null;
      if (reason !== null && FINAL_STOP_REASONS.includes(reason))
        throw new AgencyError(
          'task_finished',
          `Task ${id} finished for good (${reason}): start a new task to do it again`,
          {
            details: { task_id: id, finish_reason: reason },
          },
        );
      if (status === 'queued' || queue.isLive(id) || record.owner?.alive)
        throw new AgencyError('task_active', `Task ${id} is ${status}; nothing to resume`, {
          details: { task_id: id, status },
        });
      if (!record.spec)
        throw new AgencyError('task_state_conflict', `Task ${id} never started: start it instead`, {
          details: { task_id: id, status },
        });
      queue.enqueue({ kind: 'resume', id, root: record.paths.root, ...(budgets ? { budgets } : {}), by: by.name });
      return action(id, record, 'Resuming');
    },

    async upload(id, files) {
      const record = await recordOf(id);
      if (!record.request?.hold || record.spec)
        throw new AgencyError(
          'task_state_conflict',
          `Task ${id} takes no uploads: files go into task/ only while a task is held (create it with "hold": true)`,
          { details: { task_id: id } },
        );
      const present = (await record.files.list(record.paths.task)).filter((entry) => entry.kind === 'file').length;
      if (present + files.length > limits.files + 1)
        throw new AgencyError('payload_too_large', `A task holds at most ${limits.files} files`, {
          details: { limit: limits.files },
        });
      const written: UploadResult['files'] = [];
      for (const [index, file] of files.entries()) {
        checkUploadName(file.name, `files.${index}.name`);
        if (file.data.byteLength > limits.fileBytes)
          throw new AgencyError('payload_too_large', `${file.name}: over the ${limits.fileBytes}-byte limit per file`, {
            details: { field: `files.${index}`, limit: limits.fileBytes },
          });
        written.push({
          name: file.name,
          size: await writeTaskFile(record.paths.root, file.name, file.data, limits.fileBytes),
        });
      }
      return { task_id: id, files: written };
    },

    deliverable: async (id, path) => openDeliverable(await recordOf(id), path),

    async inbox() {
      const ids = (await readdir(root.tasks).catch((): string[] => [])).filter((name) => isId(name, 'task')).sort();
      const items: InboxItem[] = [];
      for (const id of ids) {
        const record = await readTaskRecord(join(root.tasks, id), id);
        if (!record.state || record.state.finish_reason !== null) continue;
        items.push(...(await inboxItemsOf(record, record.spec?.goal ?? '', now())));
      }
      return items;
    },

    async decide(requestId, body, by) {
      if (!isId(requestId, 'req'))
        throw new AgencyError(
          'invalid_argument',
          `"${String(requestId).slice(0, 80)}" is not a request id (req_ and a ULID)`,
          {
            details: { field: 'id' },
          },
        );
      const ids = body.task_id
        ? [body.task_id]
        : (await readdir(root.tasks).catch((): string[] => [])).filter((name) => isId(name, 'task'));
      for (const id of ids) {
        const record = await readTaskRecord(rootOf(id), id);
        if (!(await holdsRequest(record, requestId))) continue;
        const pending = (await inboxItemsOf(record, '', now())).find((item) => item.request.id === requestId);
        const entry = pending?.request ?? (await decidedRequest(record, requestId));
        const decision = await decideRequest(record, entry, body, by.name, now());
        logger.info(
          { task_id: id, request_id: requestId, decision: decision.decision, by: by.name },
          'decision recorded',
        );
        return decision;
      }
      throw new AgencyError(
        'approval_not_found',
        body.task_id ? `Task ${body.task_id} has no request ${requestId}` : `No task has a request ${requestId}`,
        { details: { request_id: requestId } },
      );
    },

    onFrame(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },

    async close() {
      const inFlight = queue.liveIds();
      await writeFileAtomic(join(root.server, IN_FLIGHT), `${JSON.stringify(inFlight)}\n`);
      await queue.drain('stopped');
    },
  };

  await reopen(options.resumeOnOpen ?? true);
  return service;

  // Tasks queued before a restart queue again; runs that were in flight resume.
  async function reopen(resume: boolean): Promise<void> {
    const file = join(root.server, IN_FLIGHT);
    const stoppedByClose = new Set<string>(JSON.parse(await readFile(file, 'utf8').catch(() => '[]')) as string[]);
    for (const id of (await readdir(root.tasks).catch((): string[] => []))
      .filter((name) => isId(name, 'task'))
      .sort()) {
      const record = await readTaskRecord(join(root.tasks, id), id).catch(() => undefined);
      if (!record) continue;
      if (record.request && !record.spec && !record.request.hold && !record.request.start_error) {
        enqueueStart(id, record);
        continue;
      }
      if (!resume || !record.state || record.owner?.alive) continue;
      const status = statusOf(record, liveOf(id));
      if (status === 'interrupted' || (stoppedByClose.has(id) && record.state.finish_reason === 'stopped')) {
        logger.info({ task_id: id }, 'resuming a run that was in flight');
        queue.enqueue({ kind: 'resume', id, root: record.paths.root, by: 'server (after a restart)' });
      }
    }
    await rm(file, { force: true });
  }
}

async function decidedRequest(record: TaskRecord, requestId: string) {
  const entry = await createFileBroker(record.paths.progress, { mode: 'file' }).get(requestId);
  if (!entry.request)
    throw new AgencyError('approval_not_found', `Request ${requestId} cannot be read`, {
      details: { request_id: requestId },
    });
  return entry.request;
}

function matches(summary: TaskSummary, filter: readonly TaskFilter[]): boolean {
  if (filter.length === 0) return true;
  return filter.some((wanted) =>
    wanted === 'stuck'
      ? summary.stuck !== null
      : wanted === 'active'
        ? ['created', 'queued', 'running', 'waiting_approval', 'interrupted'].includes(summary.status)
        : summary.status === wanted,
  );
}

// Follows the journal from `after`. It ends after the `finish` frame at `endAt` or later (earlier finishes belong to
// runs since resumed) and once the run has let go of the task (the runner writes state.json after journaling its
// finish, and a client told the stream is over asks for the result or resumes next), unless a resume of the task is
// queued by then, in which case it waits for that run's finish.
async function* followUntilEnd(
  hub: JournalHub,
  file: string,
  after: number,
  signal: AbortSignal | undefined,
  endAt: number,
  run: { resumeQueued: () => boolean; settled: () => Promise<unknown> },
): AsyncGenerator<EventFrame> {
  const controller = new AbortController();
  const stop = () => controller.abort();
  signal?.addEventListener('abort', stop, { once: true });
  try {
    for await (const frame of hub.follow(file, after, controller.signal)) {
      yield frame;
      if (frame.type !== 'finish' || frame.seq < endAt) continue;
      if (!run.resumeQueued()) {
        await run.settled();
        return;
      }
      endAt = frame.seq + 1;
    }
  } finally {
    signal?.removeEventListener('abort', stop);
    controller.abort();
  }
}
