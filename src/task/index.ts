// Governed tasks: the runner, its loops and their public pieces, the on-disk contracts, approvals and the journal.
// See docs/runner.md and docs/task-folder.md.
export { type AgentStepOptions } from './agent-step.ts';
export { type ApprovalAsk, askApproval } from './approval-flow.ts';
export {
  type ApprovalBroker,
  type ApprovalOutcome,
  type AwaitApprovalOptions,
  type InvalidDecision,
} from './approvals/broker.ts';
export { type DecideOptions, decide } from './approvals/decide.ts';
export {
  type ApprovalMode,
  createFileBroker,
  type FileBroker,
  type FileBrokerOptions,
} from './approvals/file-broker.ts';
export { createInMemoryBroker, type InMemoryBroker } from './approvals/in-memory-broker.ts';
export { type BudgetTracker, createBudgetTracker } from './budgets.ts';
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
export { CONTROL_PATHS } from './control-paths.ts';
export { foldJournal, type JournalFold } from './journal-fold.ts';
export { followJournal } from './journal/follow-journal.ts';
export type { FrameFactoryOptions } from './journal/frame-factory.ts';
export type { Journal, JournalSyncMode } from './journal/journal.ts';
export { createMemoryJournal, type MemoryJournal, type MemoryJournalOptions } from './journal/memory-journal.ts';
export { readJournal } from './journal/read-journal.ts';
export { checkTaskFolder, scaffoldTask, type TaskPaths, taskPaths } from './layout.ts';
export { type AgentStepOutput, type Loop, type LoopContext, type LoopOutcome, type ReplanRequest } from './loop.ts';
export { gatherPlanActVerify } from './loops/gather-plan-act-verify.ts';
export {
  type ActionResult,
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
export { type ActOutcome, actPhase } from './phases/act.ts';
export { approvePlan } from './phases/approve.ts';
export { gatherPhase } from './phases/gather.ts';
export { planPhase, type SignedPlan, writePlan } from './phases/plan.ts';
export { verifyPhase } from './phases/verify.ts';
export type { DeliverableRef } from './deliverables.ts';
export { type DoTaskResult, type ResultView, type StepReport, viewOf } from './result.ts';
export {
  createRunner,
  DEFAULT_PERSONA,
  type MemoryContext,
  type Runner,
  type RunnerOptions,
  type StepOnceResult,
  type TaskHandle,
} from './runner.ts';
export type { RunListener } from './session.ts';
export { createMemoryStateStore, type StateStore } from './state-store.ts';
export { type ApprovalPolicy, type Budgets, type TaskSpec } from './task-spec.ts';
export { loadTaskHistory, type ReadTextFile } from './task-history.ts';
