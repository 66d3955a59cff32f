import type { AgentDeps } from '../agent/llm-agent-options.ts';
import type { ModelInput } from '../agent/llm-agent.ts';
import type { Processor } from '../agent/processors.ts';
import type { ModelCatalog } from '../core/model-catalog.ts';
import type { Redactor } from '../core/redact.ts';
import type { MemoryEvent, MemoryManager } from '../memory/memory-manager.ts';
import type { Logger } from '../obs/logger.ts';
import type { PromptPins } from '../prompts/prompt-set.ts';
import type { PromptStore } from '../prompts/prompt-store.ts';
import type { Policy } from '../policy/create-policy.ts';
import type { Tool } from '../tools/define-tool.ts';
import type { ApprovalBroker } from './approvals/broker.ts';
import type { DurableFs } from './fs/durable-fs.ts';
import type { FrameFactoryOptions } from './journal/frame-factory.ts';
import type { Journal, JournalSyncMode } from './journal/journal.ts';
import type { TaskPaths } from './layout.ts';
import type { Loop } from './loop.ts';
import type { StateStore } from './state-store.ts';

/** Options for {@link createRunner}. */
export type RunnerOptions = {
  /** The model; when absent, the spec's `model` string is used. */
  model?: ModelInput;
  /**
   * The structured log: one line per journal frame of every run (see `createLogger` in `agency/obs`). Give it the
   * component, e.g. `createLogger({ component: 'runner' })` or `logger.child({ component: 'runner' })`.
   */
  logger?: Logger | undefined;
  /** The tools, or a function that builds them for a task folder (e.g. scoped to its `task/` and `progress/`). */
  tools?: readonly Tool[] | ((paths: TaskPaths) => readonly Tool[]);
  /**
   * Memory for pinned blocks, phase recall and learnings. Pass a factory to have its `memory.read`/`memory.write`
   * notifications journaled and its entries redacted: it receives `onEvent` and `redact` to give the manager.
   * Either way, every write goes through the run's policy (`{ kind: 'memory-write' }`).
   */
  memory?: MemoryManager | ((context: MemoryContext) => MemoryManager);
  /**
   * The operator's policy (e.g. `strictPolicy()`). Each run holds one policy: this one with the spec's approval
   * settings added as rules (`require_plan` → `requirePlanApproval()`, `require_tools` → `requireApprovalFor()`),
   * asked about every plan, tool call, tool output, model input and memory write. Deny beats approval and approval
   * beats allow; its approvals go through the run's broker (request files), and its denials and changes are
   * journaled as `policy.blocked` and `policy.modified`.
   * @default no rules of its own: only the spec's approval rules apply
   * @example
   * createRunner({ model, tools, policy: strictPolicy({ domains: ['api.github.com'] }) })
   */
  policy?: Policy;
  /**
   * Journaled as `warning` events each time a run starts or resumes: the operator's opt-outs that anyone reading the
   * paper trail should see, such as a permissive policy or no sandbox. The CLI passes them.
   * @default []
   * @example
   * createRunner({ model, tools, policy: permissivePolicy(), warnings: ['The operator chose a permissive policy'] })
   */
  warnings?: readonly string[];
  /** Extra processors; they run after the tool gate and the policy, before a call is journaled. */
  processors?: readonly Processor[];
  /**
   * Offers the model `execute_plan`, a batch of tool calls in one call; each of its calls passes the tool gate, the
   * policy and approvals, and is journaled, as a call of its own (docs/agent.md). @default false
   */
  planExecution?: boolean;
  /** `file` or `auto` overrides the spec's approval mode; a function supplies another broker. */
  approvals?: 'file' | 'auto' | ((progressDir: string) => ApprovalBroker);
  /** Loops a spec can name, besides the two built in. */
  loops?: readonly Loop[];
  /**
   * The system prompt of every model call, as plain text; it replaces the `runner.persona` prompt (and is journaled
   * without a prompt version). @default the `runner.persona` prompt
   */
  persona?: string;
  /**
   * Prompt templates laid over agency's built-in ones (`runner.*`, `agent.*`): an id this store holds is served from
   * it alone, at its latest version unless `promptVersions` pins one. Every model call journals the versions it
   * used. @default the built-in prompts only
   * @example
   * createRunner({ model, prompts: createFilePromptStore({ dir: './prompts' }) })
   */
  prompts?: PromptStore;
  /**
   * The version of a prompt to use instead of the latest, by id, e.g. to keep replaying a cassette recorded with
   * it. @example { 'runner.plan': 1 }
   */
  promptVersions?: PromptPins;
  /** Output tokens per model call. @default 2048 */
  maxOutputTokens?: number;
  catalog?: ModelCatalog;
  /**
   * Scrubs secrets from the journal, checkpoints, step outputs and findings before they are written.
   * @default defaultRedactor (known key shapes plus every value registered by the credential broker)
   */
  redactor?: Redactor;
  /** How the default file journal fsyncs. @default 'group' */
  journalSync?: JournalSyncMode;
  /**
   * Opens the journal of a run, for a process that keeps journals somewhere other than the task folder. It gets the
   * frame options to apply (the runner's clock, ids and redactor) and must return a journal holding the run's
   * earlier frames, if any.
   * @default the file journal at `progress/events.ndjson`
   * @example
   * createRunner({ journal: (paths, frames) => createMemoryJournal({ ...frames, frames: saved.get(paths.root) }) })
   */
  journal?: (paths: TaskPaths, frames: FrameFactoryOptions) => Journal | Promise<Journal>;
  /** Where a run keeps its state checkpoint. @default `progress/state.json` (createFileStateStore) */
  stateStore?: (paths: TaskPaths) => StateStore;
  /**
   * The clock, the id generator, the sleep and the jitter of everything the runner builds (journal frames,
   * approvals, the agent it runs: its run ids, timestamps and model retry waits), and the file system under the task
   * folder (which the journal, the state, the approvals and the tools' durability batch go through; a test passes a
   * spy to count or delay its calls). Tests fix them to make runs reproducible.
   * @default { now: Date.now, newId: createIdGenerator({ now }), sleep: a timer, random: Math.random, fs: the disk }
   */
  deps?: AgentDeps & { fs?: DurableFs };
};

/** What a memory factory receives. */
export type MemoryContext = {
  taskId: string;
  userId: string | null;
  /** Journals a manager's notification as a `memory.read` or `memory.write` event (counts and scopes only). */
  onEvent: (event: MemoryEvent) => void;
  redact: (text: string) => string;
};
