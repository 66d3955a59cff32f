import { AgencyError } from '../core/errors.ts';
import {
  formatScope,
  MEMORY_SCOPE_KINDS,
  type MemoryEntry,
  type MemoryScope,
  type MemoryScopeKind,
  type MemoryStore,
  type StoredMemoryEntry,
} from './memory-store.ts';
import {
  applyPrecedence,
  CHANNEL_OF,
  CHANNEL_ORDER,
  compareByContent,
  dedupe,
  DEFAULT_PRECEDENCE,
  type DedupeOptions,
  type MemoryEnv,
  type MemoryPrecedence,
  toViewItem,
  winnersOf,
} from './memory-view.ts';
import { putMany } from './put-many.ts';
import { checkEntries } from './store-rules.ts';
import { buildPhaseBlock, DEFAULT_PHASE_RECALL, type PhaseContext, type PhaseRecallSpec } from './phase-recall.ts';
import { CHANNEL_HEADINGS, joinBlock, type MemoryBlock, renderSection } from './render-memory.ts';

/** Token budgets of the pinned block, per channel (`shared` is org, team and project together). */
export type PinnedBudgets = { agent: number; user: number; shared: number };

/** The default pinned budgets: agent 80, user 60, org/team/project 60 tokens. */
export const DEFAULT_PINNED_BUDGETS: Readonly<PinnedBudgets> = { agent: 80, user: 60, shared: 60 };

/** What goes in the pinned block. */
export type PinnedOptions = {
  /** @default DEFAULT_PINNED_BUDGETS */
  budgets?: Partial<PinnedBudgets>;
  /** Entry kinds that are always pinned. @default ['preference', 'constraint'] */
  kinds?: string[];
  /** Entries with this tag are pinned whatever their kind. @default 'pinned' */
  tag?: string;
  /** How many candidates to read per channel. @default 32 */
  topK?: number;
};

/** A notification that memory was read or written. It carries scopes and counts only, never entry text. */
export type MemoryEvent = { type: 'memory.read' | 'memory.write'; scopes: string[]; count: number; phase?: string };

/** Options for {@link createMemoryManager}. */
export type MemoryManagerOptions = {
  store: MemoryStore;
  /** The active channels, by scope kind: `{ agent: 'a1', user: 'u1', org: 'acme', task: 'task_01…' }`. */
  channels: Partial<Record<MemoryScopeKind, string>>;
  pinned?: PinnedOptions;
  /** Recall per phase, replacing the default of the same phase. @default DEFAULT_PHASE_RECALL */
  phases?: Readonly<Record<string, PhaseRecallSpec>>;
  /** Precedence lists, replacing the default of the same entry kind. @default DEFAULT_PRECEDENCE */
  precedence?: MemoryPrecedence;
  /** @default { byHash: true, byTitle: true } */
  dedupe?: Partial<DedupeOptions>;
  /** Applied to every title and text rendered or written. @default identity */
  redact?: (text: string) => string;
  /** Receives `memory.read` and `memory.write` notifications; awaited, so a journal write can finish first. */
  onEvent?: (event: MemoryEvent) => void | Promise<void>;
  /**
   * Asked before every write with the redacted entry: returns the entry to store (the same one, or a changed one) or
   * `null` to refuse the write. A governed run adds its policy here ({@link MemoryManager.withWriteCheck}).
   * @default store every entry as it is
   */
  checkWrite?: MemoryWriteCheck;
};

/**
 * Decides one memory write: the entry to store (as given or changed), or `null` to refuse it.
 *
 * @example
 * const noOrgWrites: MemoryWriteCheck = (scope, entry) => (scope.kind === 'org' ? null : entry);
 */
export type MemoryWriteCheck = (
  scope: MemoryScope,
  entry: MemoryEntry,
) => MemoryEntry | null | Promise<MemoryEntry | null>;

/** What {@link MemoryManager.writeLearnings} records. */
export type Learnings = {
  summary: string;
  taskId: string;
  /** Citations (paths such as `progress/sources.jsonl`, or URLs). */
  sources?: string[];
};

/** What was written, and which scopes a write check refused. */
export type WriteResult = { written: StoredMemoryEntry[]; denied: MemoryScope[] };

/** Composes memory channels into the prompt blocks of a governed task. */
export type MemoryManager = {
  /** The active scopes, in composition order: agent, user, org, team, project, task. */
  readonly scopes: readonly MemoryScope[];
  /**
   * The pinned block: preferences, constraints and `pinned`-tagged entries of the agent, user and org/team/project
   * channels (never the task channel, which changes during a run), in content order, under the heading `# Memory`,
   * each channel section within its budget. Byte-stable while those entries do not change.
   */
  buildPinned(): Promise<MemoryBlock>;
  /** Recall for one phase, deduped against `context.exclude` (pass the pinned block). Unknown phases recall nothing. */
  buildPhase(phase: string, context?: PhaseContext): Promise<MemoryBlock>;
  /** Writes one entry (redacted, then checked by `checkWrite`). Returns null when it was refused. */
  write(scope: MemoryScope, entry: MemoryEntry): Promise<StoredMemoryEntry | null>;
  /**
   * Writes many entries of one scope (bulk imports): each redacted and checked by `checkWrite` as `write` does, and
   * the ones kept stored through `putMany` (one transaction where the store has it). Returns, per entry in order,
   * the entry as stored or null when it was refused; one `memory.write` event counts the entries stored.
   */
  writeMany(scope: MemoryScope, entries: readonly MemoryEntry[]): Promise<Array<StoredMemoryEntry | null>>;
  /**
   * Records what a task learned, as an `episode` in `task:<taskId>` and in the agent channel, with provenance.
   * Call it when the task completes successfully. Writing again for the same task replaces the earlier entries.
   */
  writeLearnings(learnings: Learnings): Promise<WriteResult>;
  /**
   * The same manager (same store, channels and options) with `check` asked after its own `checkWrite`, before every
   * write, `writeLearnings` included. The governed runner puts every memory write of a run through its policy so.
   *
   * @example
   * const guarded = memory.withWriteCheck((scope, entry) => (scope.kind === 'agent' ? null : entry));
   */
  withWriteCheck(check: MemoryWriteCheck): MemoryManager;
};

/**
 * Creates a memory manager over a store.
 *
 * @example
 * const memory = createMemoryManager({ store, channels: { agent: 'a1', user: 'u1', task: 'task_1' } });
 * const pinned = await memory.buildPinned();
 * const recall = await memory.buildPhase('gather', { text: goal, exclude: pinned });
 */
export function createMemoryManager(options: MemoryManagerOptions): MemoryManager {
  const { store, redact = (text: string) => text, onEvent, checkWrite } = options;
  const scopes = scopesOf(options.channels);
  const env: MemoryEnv = {
    store,
    scopes,
    redact,
    precedence: { ...DEFAULT_PRECEDENCE, ...options.precedence },
    dedupeOptions: { byHash: true, byTitle: true, ...options.dedupe },
  };
  const emit = async (event: MemoryEvent) => {
    await onEvent?.(event);
  };

  const write = async (scope: MemoryScope, entry: MemoryEntry) => {
    const clean = redactEntry(entry, redact);
    const checked = checkWrite === undefined ? clean : await checkWrite(scope, clean);
    return checked === null ? null : store.put(scope, checked);
  };

  return {
    scopes,
    async buildPinned() {
      const block = await buildPinnedBlock(env, options.pinned);
      await emit({ type: 'memory.read', scopes: block.scopes, count: block.count });
      return block;
    },
    async buildPhase(phase, context = {}) {
      const spec = options.phases?.[phase] ?? DEFAULT_PHASE_RECALL[phase];
      if (spec === undefined || spec.queries.length === 0) return joinBlock([], { scopes: [], winners: {} });
      const block = await buildPhaseBlock(env, phase, spec, context);
      await emit({ type: 'memory.read', scopes: block.scopes, count: block.count, phase });
      return block;
    },
    async write(scope, entry) {
      const stored = await write(scope, entry);
      if (stored !== null) await emit({ type: 'memory.write', scopes: [formatScope(scope)], count: 1 });
      return stored;
    },
    async writeMany(scope, entries) {
      checkEntries(entries);
      const checked: Array<MemoryEntry | null> = [];
      for (const entry of entries) {
        const clean = redactEntry(entry, redact);
        checked.push(checkWrite === undefined ? clean : await checkWrite(scope, clean));
      }
      const kept = checked.filter((entry) => entry !== null);
      const stored = await putMany(store, scope, kept);
      if (stored.length > 0) await emit({ type: 'memory.write', scopes: [formatScope(scope)], count: stored.length });
      let next = 0;
      return checked.map((entry) => (entry === null ? null : (stored[next++] as StoredMemoryEntry)));
    },
    async writeLearnings({ summary, taskId, sources = [] }) {
      const result: WriteResult = { written: [], denied: [] };
      if (summary.trim() === '') return result;
      const entry = learningsEntry(summary, taskId, sources);
      const agent = scopes.find((scope) => scope.kind === 'agent');
      for (const scope of [{ kind: 'task' as const, id: taskId }, ...(agent === undefined ? [] : [agent])]) {
        const stored = await write(scope, entry);
        if (stored === null) result.denied.push(scope);
        else result.written.push(stored);
      }
      if (result.written.length > 0) {
        const written = result.written.map((e) => formatScope(e.scope)).sort();
        await emit({ type: 'memory.write', scopes: written, count: result.written.length });
      }
      return result;
    },
    withWriteCheck(check) {
      return createMemoryManager({ ...options, checkWrite: chainChecks(checkWrite, check) });
    },
  };
}

function chainChecks(first: MemoryWriteCheck | undefined, second: MemoryWriteCheck): MemoryWriteCheck {
  if (first === undefined) return second;
  return async (scope, entry) => {
    const checked = await first(scope, entry);
    return checked === null ? null : second(scope, checked);
  };
}

function learningsEntry(summary: string, taskId: string, sources: readonly string[]): MemoryEntry {
  return {
    kind: 'episode',
    key: `learnings:${taskId}`,
    title: `Learnings from ${taskId}`,
    text: summary.trim(),
    tags: ['learnings'],
    metadata: { provenance: { source: 'task', taskId, sources: [...sources] } },
  };
}

const PINNED_CHANNELS = ['agent', 'user', 'shared'] as const;

/** The heading of the pinned block; its 3 tokens are outside the channel budgets. */
export const PINNED_HEADING = '# Memory';

async function buildPinnedBlock(env: MemoryEnv, pinned: PinnedOptions = {}): Promise<MemoryBlock> {
  const { kinds = ['preference', 'constraint'], tag = 'pinned', topK = 32 } = pinned;
  const budgets = { ...DEFAULT_PINNED_BUDGETS, ...pinned.budgets };
  const read: string[] = [];
  const byId = new Map<string, StoredMemoryEntry>();
  for (const channel of PINNED_CHANNELS) {
    const scopes = env.scopes.filter((scope) => CHANNEL_OF[scope.kind] === channel);
    if (scopes.length === 0) continue;
    read.push(...scopes.map(formatScope));
    const found = await Promise.all([
      env.store.query(scopes, { name: 'pinned', kinds, topK }),
      env.store.query(scopes, { name: 'pinned', tags: [tag], topK }),
    ]);
    for (const entry of found.flat()) byId.set(`${formatScope(entry.scope)}\n${entry.id}`, entry);
  }
  const items = [...byId.values()].map((entry) => toViewItem(entry, env.redact));
  const ordered = applyPrecedence(items, env.precedence).sort(
    (a, b) => CHANNEL_ORDER[a.channel] - CHANNEL_ORDER[b.channel] || compareByContent(a, b),
  );
  const kept = dedupe(ordered, env.dedupeOptions);
  const sections = PINNED_CHANNELS.map((channel) =>
    renderSection(
      CHANNEL_HEADINGS[channel],
      kept.filter((item) => item.channel === channel),
      budgets[channel],
    ),
  );
  return joinBlock(sections, { header: PINNED_HEADING, scopes: read, winners: winnersOf(ordered) });
}

function scopesOf(channels: Partial<Record<MemoryScopeKind, string>>): MemoryScope[] {
  const scopes: MemoryScope[] = [];
  for (const kind of MEMORY_SCOPE_KINDS) {
    const id = channels[kind];
    if (id === undefined) continue;
    if (typeof id !== 'string' || id === '') {
      throw new AgencyError('invalid_argument', `Memory channel "${kind}" needs a non-empty id`);
    }
    scopes.push({ kind, id });
  }
  return scopes;
}

function redactEntry(entry: MemoryEntry, redact: (text: string) => string): MemoryEntry {
  return {
    ...entry,
    text: redact(entry.text),
    ...(entry.title === undefined ? {} : { title: redact(entry.title) }),
  };
}
