// Memory channels, prompt assembly and seeded history. See docs/memory.md.
export {
  type ClientOptions,
  createDatabaseClient,
  createMemoryClient,
  type DatabaseClient,
  type DatabaseRecord,
  type MemoryClient,
  type MemoryClientEntry,
} from './clients.ts';
export {
  type HistoryPolicy,
  historyPolicyFromSpec,
  type RenderHistoryInput,
  renderHistory,
  SUMMARY_HEADING,
  type SpecHistory,
} from './history-policy.ts';
export { HISTORY_FILES, parseHistoryJsonl, parseHistoryMarkdown } from './history.ts';
export { createInMemoryMemoryStore, type InMemoryMemoryStoreDeps } from './in-memory-memory-store.ts';
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
} from './memory-manager.ts';
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
} from './memory-store.ts';
export { DEFAULT_PHASE_RECALL, type PhaseContext, type PhaseRecallSpec } from './phase-recall.ts';
export {
  type AssemblePromptInput,
  assemblePrompt,
  CACHE_BREAKPOINT,
  type PromptSegment,
  stablePrefixLength,
} from './prompt-assembly.ts';
export { type MemoryBlock } from './render-memory.ts';
export { estimateTokens, truncateToTokens } from './tokens.ts';
