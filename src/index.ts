// The root entry of agency: agents, tools, models, errors, policy, memory, usage and redaction. It imports no Node
// built-in and no provider package, so it runs in any JS runtime; model providers load on a model's first call.
// Node-only and heavy parts are subpath entries: agency/tasks, agency/testing, agency/tools, agency/sandbox,
// agency/mcp, agency/obs, agency/credentials and agency/server; agency/client, the HTTP client, is portable too.
// Each name is exported once, from the module that defines it.

// core
export { canonicalDigest, canonicalJson } from './core/canonical-json.ts';
export { type Clock, systemClock } from './core/clock.ts';
export { ERROR_CODES, type ErrorCode, isErrorCode } from './core/error-codes.ts';
export { AgencyError, type AgencyErrorOptions, isAbortError } from './core/errors.ts';
export { createIdGenerator, type IdGenerator, type IdPrefix, idTime, isId, newId } from './core/ids.ts';
export {
  type AssistantMessage,
  assistantMessage,
  type FileData,
  type FilePart,
  fileData,
  type ImagePart,
  imagePart,
  type JsonValue,
  type Message,
  type MessagePart,
  type ProviderOptions,
  type ProviderPart,
  type ReasoningPart,
  type SystemMessage,
  systemMessage,
  type TextPart,
  textOf,
  type ToolCallPart,
  toolCallsOf,
  type ToolMessage,
  type ToolResultContentPart,
  type ToolResultOutput,
  type ToolResultPart,
  type UserMessage,
  userMessage,
} from './core/messages.ts';
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
export { sha256Hex } from './core/sha256.ts';
export { addUsage, emptyUsage, type Usage } from './core/usage.ts';

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
export type { ModelChain, ModelChoice, ModelNeeds } from './model/capabilities.ts';
export { classifyModelError, type ModelErrorClass, type ModelErrorInfo } from './model/classify-error.ts';
export { type ModelSpec, parseModelSpec } from './model/model-spec.ts';
export { type ResolveModelOptions, resolveModel } from './model/resolve-model.ts';
export { isStrictJsonSchema } from './model/response-format.ts';

// agent
export {
  type AgentDeps,
  type DynamicContext,
  type LLMAgentOptions,
  type ModelInput,
} from './agent/llm-agent-options.ts';
export { LLMAgent } from './agent/llm-agent.ts';
export {
  type ConversationMemoryOptions,
  type Exchange,
  modelFactExtractor,
  USER_FACTS_HEADING,
  withConversationMemory,
} from './agent/conversation-memory.ts';
export { halt, type Processor, type ProcessorContext, type ProcessorVerdict, suspend } from './agent/processors.ts';
export { type AgentHandle, type SpawnOptions, type SpawnState, spawn } from './agent/spawn.ts';
export { type ParsedAnswer, parseStructuredAnswer, type StructuredOutputOptions } from './agent/structured-output.ts';
export type { SerializedRun, SuspendBudget, Suspended } from './agent/suspend.ts';
export {
  type Agent,
  type AgentEvent,
  type AgentFinishReason,
  type AgentResult,
  type AgentStream,
  type AgentTask,
  type Attachment,
  type CallRecord,
  type ExecuteOptions,
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
export { requestSuspend } from './tools/suspend-request.ts';
export { createToolRegistry, type ToolRegistry } from './tools/tool-registry.ts';

// prompt templates
export { BUILTIN_PROMPTS, builtinPromptStore } from './prompts/builtin-prompts.ts';
export {
  createPromptStore,
  type NextVersion,
  type PromptRecords,
  type PromptStoreDeps,
} from './prompts/create-prompt-store.ts';
export { createInMemoryPromptStore, type InMemoryPromptStoreOptions } from './prompts/in-memory-prompt-store.ts';
export { layerPromptStores } from './prompts/layer-prompt-stores.ts';
export { type PromptValue } from './prompts/mustache-engine.ts';
export {
  type PromptPins,
  type PromptSet,
  resolvePromptSet,
  type ResolvePromptSetOptions,
} from './prompts/prompt-set.ts';
export {
  PROMPT_ENGINES,
  type PromptAuditEntry,
  type PromptDraft,
  type PromptEngine,
  promptRef,
  type PromptStore,
  type PromptTemplate,
  type PromptValidation,
  type PromptVars,
  type RenderedPrompt,
} from './prompts/prompt-store.ts';
export { renderPrompt } from './prompts/render-prompt.ts';

// memory
export {
  type ClientOptions,
  createDatabaseClient,
  createMemoryClient,
  type DatabaseClient,
  type DatabaseRecord,
  type MemoryClient,
  type MemoryClientEntry,
} from './memory/clients.ts';
export { parseHistoryJsonl, parseHistoryMarkdown } from './memory/history.ts';
export { type HistoryPolicy, type RenderHistoryInput, renderHistory } from './memory/history-policy.ts';
export { createInMemoryMemoryStore, type InMemoryMemoryStoreDeps } from './memory/in-memory-memory-store.ts';
export { putMany } from './memory/put-many.ts';
export {
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
} from './memory/memory-manager.ts';
export {
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
} from './memory/memory-store.ts';
export { DEFAULT_PHASE_RECALL, type PhaseContext, type PhaseRecallSpec } from './memory/phase-recall.ts';
export {
  type AssemblePromptInput,
  assemblePrompt,
  CACHE_BREAKPOINT,
  type PromptSegment,
  stablePrefixLength,
} from './memory/prompt-assembly.ts';
export type { MemoryBlock } from './memory/render-memory.ts';
export { estimateTokens, truncateToTokens } from './core/tokens.ts';

// policy
export {
  type ContentFilterOptions,
  type ContentStage,
  contentFilter,
  memoryWriteFilter,
} from './policy/content-filter.ts';
export { createPolicy, type EvaluateOptions, type Policy, type PolicyOptions } from './policy/create-policy.ts';
export { type DomainAllowlistOptions, domainAllowlist } from './policy/domain-allowlist.ts';
export { type CheckedMemoryEntry, type PolicyMemoryCheckOptions, policyMemoryCheck } from './policy/memory-check.ts';
export {
  type ApprovalAnswer,
  type ApprovalRequest as PolicyApprovalRequest,
  type PolicyProcessor,
  type PolicyProcessorOptions,
  policyProcessor,
} from './policy/policy-processor.ts';
export type {
  AuditSink,
  PolicyAuditEvent,
  PolicyDecision,
  PolicyRequest,
  PolicyRequestKind,
  PolicyRule,
  PolicyTool,
  RuleVerdict,
} from './policy/policy-types.ts';
export {
  permissivePolicy,
  STORE_TOOLS,
  STRICT_APPROVAL_TOOLS,
  type StrictPolicyOptions,
  strictPolicy,
} from './policy/presets.ts';
export { type RateLimitOptions, rateLimit } from './policy/rate-limit.ts';
export {
  type ApprovalScope,
  requireApprovalFor,
  requirePlanApproval,
  toolAllowlist,
  toolDenylist,
} from './policy/tool-rules.ts';
export { type WriteScopeOptions, writeScope } from './policy/write-scope.ts';
