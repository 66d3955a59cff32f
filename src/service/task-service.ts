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
import type { RoleRegistry } from '../roles/registry.ts';
import type { IdGenerator } from '../core/ids.ts';
import type { ApprovalDecision } from '../task/contracts/approvals.ts';
import type { EventFrame } from '../task/contracts/events.ts';
import type { ResultView } from '../task/result.ts';
import type { Runner } from '../task/runner.ts';
import type { Budgets } from '../task/task-spec.ts';
import type { AgencyRoot } from '../config/agency-root.ts';
import { decideApproval } from './decide-approval.ts';
import { openDeliverable, type OpenedDeliverable } from './deliverable-file.ts';
import { listInbox } from './list-inbox.ts';
import { listTasks } from './list-tasks.ts';
import { releaseTask } from './release-task.ts';
import { closeTasks, reopenTasks } from './reopen-tasks.ts';
import { resumeTask } from './resume-task.ts';
import { liveOf, openServiceCore, recordOf } from './service-core.ts';
import type { ServiceLogger } from './service-logger.ts';
import { startAndWait, startTask } from './start-task.ts';
import { taskEvents } from './task-events.ts';
import type { IncomingFile, IntakeLimits } from './task-intake.ts';
import { summaryOf } from './task-records.ts';
import { detailOf, resultOf } from './task-views.ts';
import { stopTask } from './stop-task.ts';
import { uploadFiles } from './upload-files.ts';

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
  /** The roles clients may name (docs/roles.md); without it, a request naming a role is refused. */
  roles?: RoleRegistry;
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

/**
 * Opens the service over a data root: tasks queued or held before a restart are found again, and runs that were in
 * flight are resumed (unless `resumeOnOpen` is false, in which case they are listed as interrupted, with a resume
 * action).
 */
export async function createTaskService(options: TaskServiceOptions): Promise<TaskService> {
  const core = await openServiceCore(options);
  const { models, approvalModes, maxConcurrentRuns, limits } = core;
  const service: TaskService = {
    settings: { models, approvalModes, maxConcurrentRuns, limits },
    start: (request, by) => startTask(core, request, by),
    startAndWait: (request, by, view) => startAndWait(core, request, by, view),
    release: (id, by) => releaseTask(core, id, by),
    list: (query) => listTasks(core, query),
    get: async (id) => detailOf(await recordOf(core, id), liveOf(core, id)),
    summary: async (id) => summaryOf(await recordOf(core, id), liveOf(core, id)),
    events: (id, options) => taskEvents(core, id, options),
    result: async (id, view) => resultOf(await recordOf(core, id), view, liveOf(core, id)),
    stop: (id, reason, by) => stopTask(core, id, reason, by),
    resume: (id, budgets, by) => resumeTask(core, id, budgets, by),
    upload: (id, files) => uploadFiles(core, id, files),
    deliverable: async (id, path) => openDeliverable(await recordOf(core, id), path),
    inbox: () => listInbox(core),
    decide: (requestId, body, by) => decideApproval(core, requestId, body, by),
    onFrame(listener) {
      core.listeners.add(listener);
      return () => core.listeners.delete(listener);
    },
    close: () => closeTasks(core),
  };
  await reopenTasks(core, options.resumeOnOpen ?? true);
  return service;
}
