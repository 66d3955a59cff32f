// agency/tasks: governed tasks, Node-only. The runner, its loops and the pieces a loop is built from, the on-disk
// contracts, approvals and the journal. See docs/runner.md and docs/task-folder.md.

export { historyPolicyFromSpec, type SpecHistory } from '../memory/history-policy.ts';
export type { AgentStepOptions } from './agent-step.ts';
export type { ApprovalBroker, ApprovalOutcome, AwaitApprovalOptions, InvalidDecision } from './approvals/broker.ts';
export { type DecideOptions, decide } from './approvals/decide.ts';
export {
  type ApprovalMode,
  createFileBroker,
  type FileBroker,
  type FileBrokerOptions,
} from './approvals/file-broker.ts';
export { createInMemoryBroker, type InMemoryBroker, type InMemoryBrokerOptions } from './approvals/in-memory-broker.ts';
export {
  type ApprovalDecision,
  approvalDecisionSchema,
  type ApprovalRequest,
  approvalRequestSchema,
  DECISIONS,
} from './contracts/approvals.ts';
export {
  EVENT_TYPES,
  EVENTS_VERSION,
  type EventFrame,
  type EventInput,
  type EventType,
  eventFrameSchema,
} from './contracts/events.ts';
export { CONTRACT_SCHEMAS, contractJsonSchema } from './contracts/json-schemas.ts';
export { type AcceptanceCheck, type Plan, PLAN_VERSION, planSchema, signPlan } from './contracts/plan.ts';
export { SPEC_VERSION, type SpecFile, specSchema } from './contracts/spec.ts';
export { STATE_VERSION, type StateFile, STOP_REASONS, stateSchema, type StopReason } from './contracts/state.ts';
export { VERIFY_VERSION, type VerifyReport, verifyReportSchema } from './contracts/verify-report.ts';
export type { DeliverableRef } from './deliverables.ts';
export { followJournal } from './journal/follow-journal.ts';
export type { FrameFactoryOptions } from './journal/frame-factory.ts';
export type { Journal, JournalSyncMode } from './journal/journal.ts';
export { createMemoryJournal, type MemoryJournal, type MemoryJournalOptions } from './journal/memory-journal.ts';
export { readJournal } from './journal/read-journal.ts';
export { checkTaskFolder, scaffoldTask, type TaskPaths, taskPaths } from './layout.ts';
export type { AgentStepOutput, Loop, LoopContext, LoopOutcome, ReplanRequest } from './loop.ts';
export { gatherPlanActVerify } from './loops/gather-plan-act-verify.ts';
export type { ActionResult } from './governed-tool.ts';
export type { LoopEvent, LoopPhases } from './loop-context.ts';
export {
  type Executor,
  finishReflector,
  modelPlanner,
  type Planner,
  type PlannerState,
  type PlanStep,
  planActReflect,
  type Reflector,
  toolExecutor,
} from './loops/plan-act-reflect.ts';
export type { ActOutcome } from './phases/act.ts';
export type { SignedPlan } from './phases/plan.ts';
export type { DoTaskResult, ResultView, StepReport } from './result.ts';
export { DEFAULT_PERSONA } from './run-context.ts';
export type { TaskHandle, TaskRef } from './run-core.ts';
export type { ResumeOptions } from './run-resume.ts';
export { createRunner, type Runner, type RunStatus, type StepOnceResult } from './runner.ts';
export type { MemoryContext, RunnerOptions } from './runner-options.ts';
export type { RunListener } from './session.ts';
export { createMemoryStateStore, type StateStore } from './state-store.ts';
export type { ApprovalPolicy, Budgets, TaskSpec } from './task-spec.ts';
export { loadTaskHistory, type ReadTextFile } from './task-history.ts';
