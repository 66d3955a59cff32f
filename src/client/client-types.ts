import type { AgencyError } from '../core/errors.ts';
import type {
  DecisionRequest,
  InboxItem,
  ServerInfo,
  StartTaskRequest,
  TaskAction,
  TaskDetail,
  TaskFilter,
  TaskList,
  TaskResult,
  UploadResult,
} from '../api/schemas.ts';
import type {
  ComponentDetail,
  FleetTask,
  FleetTaskAction,
  FleetTaskCreated,
  FleetTaskRequest,
  FleetQueueRequest,
  FleetTaskQueued,
  FleetTaskSummary,
  FleetView,
} from '../api/fleet-schemas.ts';
import type { HistoryRecord } from '../fleet/api/worker-schemas.ts';
import type { HistoryPage } from '../fleet/worker-client.ts';
import type { ApprovalDecision } from '../task/contracts/approvals.ts';
import type { EventFrame } from '../task/contracts/events.ts';
import type { EventsOptions } from './follow-events.ts';
import type { ReconnectOptions } from './follow-sse.ts';

/** Options every call takes. */
export type CallOptions = { signal?: AbortSignal };

/** How much of a result: `minimal`, `summary` or `full`. @default 'summary' */
export type ResultViewOption = { view?: 'minimal' | 'summary' | 'full' };

/** A file for a held task's `task/`: one name (no directory), and its content. */
export type UploadFile = { name: string; data: Blob | Uint8Array | string; type?: string };

/** A filter and a page of the task list. */
export type ListTasksOptions = CallOptions & {
  /** One filter or several (any of them matches): a status, `stuck` or `active`. */
  status?: TaskFilter | readonly TaskFilter[];
  /** `next_cursor` of the page before. */
  cursor?: string;
  /** @default 20 (at most 100) */
  limit?: number;
};

/** The API's budgets, to raise on resume. */
export type ResumeBudgets = NonNullable<StartTaskRequest['budgets']>;

/** The tasks on the server: start, follow, steer and read them. */
export type TasksClient = {
  /** `GET /agent/tasks`: a page of tasks, newest first. */
  list(options?: ListTasksOptions): Promise<TaskList>;
  /** `GET /agent/tasks/{id}`: a task with its plans, verify reports, approvals and deliverables. */
  get(id: string, options?: CallOptions): Promise<TaskDetail>;
  /** `POST /agent/tasks/do/async`: creates a task and queues its run (or holds it, with `hold: true`). */
  start(request: StartTaskRequest, options?: CallOptions): Promise<TaskAction>;
  /** `POST /agent/tasks/do`: starts a task and answers when its run ends. */
  run(request: StartTaskRequest, options?: CallOptions & ResultViewOption): Promise<TaskResult>;
  /** `GET /agent/tasks/{id}/result`: a finished run's result (`task_active` while it runs). */
  result(id: string, options?: CallOptions & ResultViewOption): Promise<TaskResult>;
  /** `POST /agent/tasks/{id}/start`: starts a task created with `hold: true`. */
  release(id: string, options?: CallOptions): Promise<TaskAction>;
  /** `POST /agent/tasks/{id}/stop`: stops a run within a second, or takes a queued one out of the queue. */
  stop(id: string, options?: CallOptions & { reason?: 'stopped' | 'cancelled' }): Promise<TaskAction>;
  /** `POST /agent/tasks/{id}/resume`: continues a run not finished on purpose, optionally with raised budgets. */
  resume(id: string, options?: CallOptions & { budgets?: ResumeBudgets }): Promise<TaskAction>;
  /** `POST /agent/tasks/{id}/upload`: files into `task/` of a held task. */
  upload(id: string, files: readonly UploadFile[], options?: CallOptions): Promise<UploadResult>;
  /**
   * `GET /agent/tasks/{id}/deliverables/{path}`: the answer itself, to read as `.body` (a `ReadableStream`),
   * `.blob()`, `.text()` or `.arrayBuffer()`; its `content-type` and `etag` (the file's sha256) are set.
   */
  deliverable(id: string, path: string, options?: CallOptions): Promise<Response>;
  /**
   * `GET /agent/tasks/{id}/events`: the run's journal frames, each once and in order, reconnecting on its own after a
   * dropped connection; it ends when the server ends the stream after the run's finish.
   */
  events(id: string, options?: EventsOptions): AsyncGenerator<EventFrame, void, undefined>;
};

/** The approvals inbox. */
export type ApprovalsClient = {
  /** `GET /agent/approvals`: every pending request across tasks, with what it asks. */
  list(options?: CallOptions): Promise<{ items: InboxItem[] }>;
  /** `POST /agent/approvals/{id}/decision`: the decision on file, signed with the caller's name. */
  decide(id: string, decision: DecisionRequest, options?: CallOptions): Promise<ApprovalDecision>;
};

/** Options of `client.fleet.watch`. */
export type WatchFleetOptions = {
  /** Ends the iteration: the iterator throws an `AgencyError` with code `aborted`. */
  signal?: AbortSignal;
  reconnect?: ReconnectOptions;
  /** Called before each wait to reconnect. */
  onReconnect?(info: { attempt: number; delayMs: number; error: AgencyError }): void;
};

/** The workers the server found, and tasks on them, through the server (which holds their tokens). */
export type FleetClient = {
  /** `GET /agent/fleet`: every component, with its state and health. */
  list(options?: CallOptions): Promise<FleetView>;
  /**
   * `GET /agent/fleet/events`: the fleet now, then again on every change (a component found, or its health, state
   * or task changed), reconnecting on its own after a dropped connection; it ends only when `signal` aborts or the
   * loop breaks.
   */
  watch(options?: WatchFleetOptions): AsyncGenerator<FleetView, void, undefined>;
  /** `GET /agent/fleet/components/{name}`: one component, polled now, with its config and lifecycle lines. */
  component(name: string, options?: CallOptions): Promise<ComponentDetail>;
  /** `POST /agent/fleet/workers/{name}/tasks`: a task for that worker (`agent_busy` when it runs another). */
  submit(worker: string, request: FleetTaskRequest, options?: CallOptions): Promise<FleetTaskCreated>;
  /** `GET /agent/fleet/workers/{name}/tasks/{id}`: the task, its prompt and lifecycle lines. */
  task(worker: string, id: string, options?: CallOptions): Promise<FleetTask>;
  /** `POST …/tasks/{id}/cancel`. */
  cancel(worker: string, id: string, options?: CallOptions): Promise<FleetTaskAction>;
  /** `POST …/tasks/{id}/continue`: the next prompt of an idle session. */
  continue(worker: string, id: string, prompt: string, options?: CallOptions): Promise<FleetTaskAction>;
  /** `POST …/tasks/{id}/end`: ends an idle session. */
  end(worker: string, id: string, options?: CallOptions): Promise<FleetTaskAction>;
  /** `GET /agent/fleet/workers/{name}/history`: a page of its history, newest first. */
  history(worker: string, options?: CallOptions & { page?: number; limit?: number }): Promise<HistoryPage>;
  /** `GET /agent/fleet/workers/{name}/history/{id}`: a task in full, with the executor's raw stdout and stderr. */
  historyRecord(worker: string, id: string, options?: CallOptions): Promise<HistoryRecord>;
  /**
   * `POST /agent/fleet/tasks`: queues a task in the fleet's database (AGENCY_DATABASE_URL) for the first idle worker
   * whose executor matches, on any host; follow it with {@link FleetClient.taskEvents}.
   */
  enqueue(request: FleetQueueRequest, options?: CallOptions): Promise<FleetTaskQueued>;
  /**
   * `POST /agent/fleet/tasks/{id}/cancel|continue|end`: a queued fleet task, through the server to the worker holding
   * it (a task still queued is withdrawn); `continue` needs `prompt`.
   */
  taskAction(
    id: string,
    verb: 'cancel' | 'continue' | 'end',
    options?: CallOptions & { prompt?: string },
  ): Promise<FleetTaskAction>;
  /** `GET /agent/fleet/tasks`: the newest tasks of the fleet's database, on any worker (AGENCY_DATABASE_URL). */
  tasks(options?: CallOptions & { limit?: number }): Promise<{ items: FleetTaskSummary[] }>;
  /**
   * `GET /agent/fleet/tasks/{id}/events`: a fleet task's events from the fleet's database as frames, live, resuming
   * after the last seq on a dropped connection; it ends when the task is final.
   */
  taskEvents(id: string, options?: EventsOptions): AsyncGenerator<EventFrame, void, undefined>;
};

/** A client for one agency server; see {@link createClient}. */
export type AgencyClient = {
  /** `GET /agent/server`: the models, approval modes and limits of the server, and who you are to it. */
  server(options?: CallOptions): Promise<ServerInfo>;
  /**
   * `POST /auth/login`: exchanges the token for the server's session cookie (HttpOnly, SameSite=Strict), so a page
   * and its `EventSource` need no token afterwards. For browsers; elsewhere pass `token` to `createClient`.
   */
  login(token: string, options?: CallOptions): Promise<void>;
  /** `POST /auth/logout`: ends the browser session. */
  logout(options?: CallOptions): Promise<void>;
  /** `GET /auth/session`: who the token or the session belongs to. */
  session(options?: CallOptions): Promise<{ principal: string }>;
  tasks: TasksClient;
  approvals: ApprovalsClient;
  fleet: FleetClient;
};
