// agency/client: a typed client for agency's HTTP API (`agency serve`), on fetch alone. Like the root entry it imports
// no Node built-in, so it runs in Node, browsers, Deno, Bun and workers (test/e2e/portable-root.test.ts bundles it).

export type {
  DecisionRequest,
  ErrorBody,
  InboxItem,
  PlanVersion,
  ServerInfo,
  StartTaskRequest,
  StuckReason,
  TaskAction,
  TaskDetail,
  TaskFilter,
  TaskList,
  TaskResult,
  TaskStatus,
  TaskSummary,
  UploadResult,
} from '../api/schemas.ts';
export type {
  ComponentDetail,
  ComponentView,
  FleetTask,
  FleetTaskAction,
  FleetTaskCreated,
  FleetTaskRequest,
  FleetView,
} from '../api/fleet-schemas.ts';
export type { HistoryRecord, WorkerTask, WorkerTaskState } from '../fleet/api/worker-schemas.ts';
export type { HistoryPage } from '../fleet/worker-client.ts';
export { AgencyError } from '../core/errors.ts';
export type { ErrorCode } from '../core/error-codes.ts';
export type { ApprovalDecision, ApprovalRequest } from '../task/contracts/approvals.ts';
export type { EventFrame } from '../task/contracts/events.ts';
export type { ApiErrorDetails } from '../api/answer-errors.ts';
export type {
  AgencyClient,
  ApprovalsClient,
  CallOptions,
  FleetClient,
  ListTasksOptions,
  ResultViewOption,
  ResumeBudgets,
  TasksClient,
  UploadFile,
  WatchFleetOptions,
} from './client-types.ts';
export { createClient } from './create-client.ts';
export type { EventsOptions, ReconnectInfo, ReconnectOptions } from './follow-events.ts';
export type { ClientOptions, FetchFunction } from './transport.ts';
