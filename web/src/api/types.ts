// The wire contract, as types only: the dashboard never loads runtime code from ../src.
export type {
  DecisionRequest,
  ErrorBody,
  InboxItem,
  PlanVersion,
  ServerInfo,
  StartTaskRequest,
  TaskAction,
  TaskDetail,
  TaskFilter,
  TaskList,
  TaskResult,
  TaskStatus,
  TaskSummary,
  StuckReason,
  UploadResult,
} from '../../../src/api/schemas.ts';
export type { ApiErrorCode } from '../../../src/api/errors.ts';
export type { ApprovalDecision, ApprovalRequest, PlanChanges } from '../../../src/task/contracts/approvals.ts';
export type { BudgetsRemaining, EventFrame, EventType, UsageJson } from '../../../src/task/contracts/events.ts';
export type { Plan } from '../../../src/task/contracts/plan.ts';
export type { BudgetLimits, StopReason } from '../../../src/task/contracts/state.ts';
export type { VerifyReport } from '../../../src/task/contracts/verify-report.ts';
export type {
  ComponentView,
  FleetTask,
  FleetTaskAction,
  FleetTaskCreated,
  FleetRegistryView,
  FleetTaskRequest,
  FleetTaskSummary,
  FleetView,
} from '../../../src/api/fleet-schemas.ts';
export type { WorkerTaskState } from '../../../src/fleet/api/worker-schemas.ts';
export type { HistoryPage } from '../../../src/fleet/worker-client.ts';
