// The root entry of agency. Heavy or Node-only integrations live in subpath entries (e.g. `agency/testing`).

export { canonicalDigest, canonicalJson, sha256Hex } from './core/canonical-json.ts';
// core
export { type Clock, sleep, systemClock } from './core/clock.ts';
export { ERROR_CODES, type ErrorCode, isErrorCode } from './core/error-codes.ts';
export { AgencyError, type AgencyErrorOptions, errorMessage, isAbortError } from './core/errors.ts';
export { createIdGenerator, ID_PREFIXES, type IdGenerator, type IdPrefix, idTime, isId, newId } from './core/ids.ts';
export { decodeJson, encodeJson } from './core/json-codec.ts';
export type {
  AssistantMessage,
  FileData,
  FilePart,
  ImagePart,
  JsonValue,
  Message,
  MessagePart,
  ProviderOptions,
  ProviderPart,
  ReasoningPart,
  SystemMessage,
  TextPart,
  ToolCallPart,
  ToolMessage,
  ToolResultContentPart,
  ToolResultOutput,
  ToolResultPart,
  UserMessage,
} from './core/messages.ts';
export {
  assistantMessage,
  fileData,
  imagePart,
  systemMessage,
  textOf,
  toolCallsOf,
  userMessage,
} from './core/messages.ts';
export { assistantMessageToContent, contentToAssistantMessage } from './core/messages-v4-content.ts';
export { fromV4Prompt, toV4Prompt } from './core/messages-v4-prompt.ts';
export {
  DEFAULT_MODEL_CATALOG,
  extendCatalog,
  lookupModel,
  type ModelCapabilities,
  type ModelCatalog,
  type ModelCatalogEntry,
  type ModelPrice,
} from './core/model-catalog.ts';
export {
  costOf,
  findModelPrice,
  type ModelPriceQuote,
  type PricedModel,
  type PricedTokens,
} from './core/model-prices.ts';
export { estimateTokens, truncateToTokens } from './core/tokens.ts';
export { addUsage, emptyUsage, subtractUsage, type Usage, usageFromV4 } from './core/usage.ts';

// model
export {
  type CallOptions,
  type CallOutcome,
  type CallPolicy,
  createModelCaller,
  type ModelCaller,
  type ModelCallerOptions,
  type ModelRequest,
  type RetryEvent,
} from './model/call-model.ts';
export { type ModelChain, type ModelChoice, type ModelNeeds, modelName, needsOf } from './model/capabilities.ts';
export { CASSETTE_FORMAT } from './model/cassette/cassette-format.ts';
export { type RecordModelOptions, recordModel } from './model/cassette/record-model.ts';
export { type ReplayModel, type ReplayModelOptions, replayModel } from './model/cassette/replay-model.ts';
export { classifyModelError, type ModelErrorClass, type ModelErrorInfo } from './model/classify-error.ts';
export { type ModelSpec, parseModelSpec } from './model/model-spec.ts';
export { type ResolveModelOptions, resolveModel } from './model/resolve-model.ts';
export {
  isStrictJsonSchema,
  type JsonAnswerRequest,
  jsonAnswerRequest,
  type JsonAnswerSpec,
} from './model/response-format.ts';
export { resultToStreamParts, streamPartsToResult } from './model/stream-convert.ts';

// agent
export {
  type AgentDeps,
  type LLMAgentOptions,
  LLMAgent,
  type ModelInput,
  type DynamicContext,
} from './agent/llm-agent.ts';
export { halt, type Processor, type ProcessorContext, type ProcessorVerdict, suspend } from './agent/processors.ts';
export { type AgentHandle, type SpawnOptions, type SpawnState, spawn } from './agent/spawn.ts';
export { SUSPENDED_RUN_SCHEMA, type SerializedRun, type SuspendBudget, type Suspended } from './agent/suspend.ts';
export { SYNTHESIS_INSTRUCTION } from './agent/run-loop.ts';
export {
  extractJson,
  type ParsedAnswer,
  parseStructuredAnswer,
  type StructuredOutputOptions,
} from './agent/structured-output.ts';
export { TRUNCATION_MARKER } from './agent/history.ts';
export {
  type Agent,
  type AgentEvent,
  type AgentFinishReason,
  type AgentResult,
  type AgentStream,
  type AgentTask,
  type Attachment,
  CONTEXT_CHAT_ID,
  CONTEXT_THREAD_ID,
  CONTEXT_USER_ID,
  type ExecuteOptions,
  type CallRecord,
  type StreamingAgent,
  taskChatId,
  taskThreadId,
  taskUserId,
} from './agent/types.ts';

// tools
export {
  type DefineToolOptions,
  defineTool,
  TOOL_EFFECTS,
  type Tool,
  type ToolContext,
  type ToolEffect,
  type ToolTask,
  toModelJsonSchema,
} from './tools/define-tool.ts';
export { type RunToolCallOptions, runToolCall, type ToolCall, type ToolCallOutcome } from './tools/run-tool-call.ts';
export { isSuspendRequest, requestSuspend, type SuspendRequest } from './tools/suspend-request.ts';
export { createToolRegistry, type ToolRegistry } from './tools/tool-registry.ts';

// redaction
export {
  createRedactor,
  DEFAULT_REDACTION_PATTERNS,
  defaultRedactor,
  isSensitiveKey,
  MIN_SECRET_LENGTH,
  REDACTED,
  type RedactionPattern,
  type Redactor,
  type RedactorOptions,
  redactError,
} from './core/redact.ts';

// memory
export {
  type ClientOptions,
  createDatabaseClient,
  createMemoryClient,
  type DatabaseClient,
  type DatabaseRecord,
  type MemoryClient,
  type MemoryClientEntry,
  type HistoryPolicy,
  historyPolicyFromSpec,
  type RenderHistoryInput,
  renderHistory,
  SUMMARY_HEADING,
  type SpecHistory,
  HISTORY_FILES,
  loadTaskHistory,
  parseHistoryJsonl,
  parseHistoryMarkdown,
  type ReadTextFile,
  createInMemoryMemoryStore,
  type InMemoryMemoryStoreDeps,
  createMemoryManager,
  DEFAULT_PINNED_BUDGETS,
  type Learnings,
  type MemoryEvent,
  type MemoryManager,
  type MemoryManagerOptions,
  type MemoryWriteCheck,
  type PinnedBudgets,
  type PinnedOptions,
  type WriteResult,
  formatScope,
  isScopeKind,
  MEMORY_SCOPE_KINDS,
  type MemoryEntry,
  type MemoryEntryKind,
  type MemoryMetadata,
  type MemoryProvenance,
  type MemoryQuery,
  type MemoryScope,
  type MemoryScopeKind,
  type MemoryStore,
  parseScope,
  type StoredMemoryEntry,
  DEFAULT_PHASE_RECALL,
  type PhaseContext,
  type PhaseRecallSpec,
  type AssemblePromptInput,
  assemblePrompt,
  CACHE_BREAKPOINT,
  type PromptSegment,
  stablePrefixLength,
  type MemoryBlock,
} from './memory/index.ts';

// policy
export {
  type ContentFilterOptions,
  type ContentStage,
  contentFilter,
  memoryWriteFilter,
  createPolicy,
  type EvaluateOptions,
  type Policy,
  type PolicyOptions,
  type DomainAllowlistOptions,
  domainAllowlist,
  type CheckedMemoryEntry,
  type PolicyMemoryCheckOptions,
  policyMemoryCheck,
  type ApprovalAnswer,
  type PolicyApprovalRequest,
  type PolicyProcessor,
  type PolicyProcessorOptions,
  policyProcessor,
  type AuditSink,
  type PolicyAuditEvent,
  type PolicyDecision,
  type PolicyRequest,
  type PolicyRequestKind,
  type PolicyRule,
  type PolicyTool,
  type RuleVerdict,
  permissivePolicy,
  STORE_TOOLS,
  STRICT_APPROVAL_TOOLS,
  type StrictPolicyOptions,
  strictPolicy,
  type RateLimitOptions,
  rateLimit,
  type ApprovalScope,
  requireApprovalFor,
  requirePlanApproval,
  toolAllowlist,
  toolDenylist,
  type WriteScopeOptions,
  writeScope,
} from './policy/index.ts';

// governed tasks
export {
  type AgentStepOptions,
  type ApprovalAsk,
  askApproval,
  type ApprovalBroker,
  type ApprovalOutcome,
  type AwaitApprovalOptions,
  type InvalidDecision,
  type DecideOptions,
  decide,
  type ApprovalMode,
  createFileBroker,
  type FileBroker,
  type FileBrokerOptions,
  createInMemoryBroker,
  type InMemoryBroker,
  type BudgetTracker,
  createBudgetTracker,
  type ApprovalDecision,
  approvalDecisionSchema,
  type ApprovalRequest,
  approvalRequestSchema,
  DECISIONS,
  EVENT_TYPES,
  EVENTS_VERSION,
  type EventFrame,
  type EventInput,
  type EventType,
  eventFrameSchema,
  CONTRACT_SCHEMAS,
  contractJsonSchema,
  type AcceptanceCheck,
  type Plan,
  PLAN_VERSION,
  planSchema,
  signPlan,
  SPEC_VERSION,
  type SpecFile,
  specSchema,
  STATE_VERSION,
  type StateFile,
  STOP_REASONS,
  stateSchema,
  type StopReason,
  VERIFY_VERSION,
  type VerifyReport,
  verifyReportSchema,
  CONTROL_PATHS,
  foldJournal,
  type JournalFold,
  followJournal,
  type Journal,
  type JournalSyncMode,
  type FrameFactoryOptions,
  createMemoryJournal,
  type MemoryJournal,
  type MemoryJournalOptions,
  createMemoryStateStore,
  type StateStore,
  readJournal,
  checkTaskFolder,
  scaffoldTask,
  type TaskPaths,
  taskPaths,
  type AgentStepOutput,
  type Loop,
  type LoopContext,
  type LoopOutcome,
  type ReplanRequest,
  gatherPlanActVerify,
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
  type ActOutcome,
  type LoopEvent,
  type LoopPhases,
  type SignedPlan,
  type DeliverableRef,
  type DoTaskResult,
  type ResultView,
  type StepReport,
  viewOf,
  createRunner,
  DEFAULT_PERSONA,
  type MemoryContext,
  type Runner,
  type RunnerOptions,
  type StepOnceResult,
  type TaskHandle,
  type RunListener,
  type ApprovalPolicy,
  type Budgets,
  type TaskSpec,
} from './task/index.ts';
