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
export { assistantMessageToContent, contentToAssistantMessage, fromV4Prompt, toV4Prompt } from './core/messages-v4.ts';
export {
  CATALOG_PRICES_AS_OF,
  DEFAULT_MODEL_CATALOG,
  extendCatalog,
  lookupModel,
  type ModelCapabilities,
  type ModelCatalog,
  type ModelCatalogEntry,
  type ModelPrice,
} from './core/model-catalog.ts';
export { addUsage, costOf, emptyUsage, subtractUsage, type Usage, usageFromV4 } from './core/usage.ts';

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
export { resultToStreamParts, streamPartsToResult } from './model/stream-convert.ts';

// agent
export { type LLMAgentOptions, LLMAgent, type ModelInput, type DynamicContext } from './agent/llm-agent.ts';
export { halt, type Processor, type ProcessorContext, type ProcessorVerdict, suspend } from './agent/processors.ts';
export { type AgentHandle, type SpawnState, spawn } from './agent/spawn.ts';
export { SUSPENDED_RUN_SCHEMA, type SerializedRun, type SuspendBudget, type Suspended } from './agent/suspend.ts';
export { SYNTHESIS_INSTRUCTION } from './agent/run-loop.ts';
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
  type StepTrace,
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
} from './tools/define-tool.ts';
export { type RunToolCallOptions, runToolCall, type ToolCall, type ToolCallOutcome } from './tools/run-tool-call.ts';
export { isSuspendRequest, requestSuspend, type SuspendRequest } from './tools/suspend-request.ts';
export { createToolRegistry, type ToolRegistry } from './tools/tool-registry.ts';
