import { compareText, contentHash, oneLine } from './entry-text.ts';
import type { MemoryScope, MemoryScopeKind, MemoryStore, StoredMemoryEntry } from './memory-store.ts';

/** A group of scopes read together: `shared` is the org, team and project scopes. */
export type MemoryChannel = 'agent' | 'user' | 'shared' | 'task';

/** The order channels are composed in: agent, user, org/team/project, task. */
export const CHANNEL_ORDER: Readonly<Record<MemoryChannel, number>> = { agent: 0, user: 1, shared: 2, task: 3 };

/** The channel of each scope kind. */
export const CHANNEL_OF: Readonly<Record<MemoryScopeKind, MemoryChannel>> = {
  agent: 'agent',
  user: 'user',
  org: 'shared',
  team: 'shared',
  project: 'shared',
  task: 'task',
};

/**
 * Which scope wins when entries of the same kind share a `key`, by entry kind; the first kind listed wins. `'*'`
 * applies to every kind without its own list. A scope kind missing from a list loses to every listed one.
 */
export type MemoryPrecedence = Readonly<Record<string, readonly MemoryScopeKind[]>>;

/**
 * The default precedence. Preferences: user > project > team > org > agent (the most personal wins).
 * Constraints: agent > org > team > project > user (the most authoritative wins). The task channel holds the
 * agent's own notes for one run, so it never overrides a preference or a constraint; for other kinds (facts,
 * episodes, procedures) the most specific scope wins: task > user > project > team > org > agent.
 */
export const DEFAULT_PRECEDENCE: MemoryPrecedence = {
  preference: ['user', 'project', 'team', 'org', 'agent', 'task'],
  constraint: ['agent', 'org', 'team', 'project', 'user', 'task'],
  '*': ['task', 'user', 'project', 'team', 'org', 'agent'],
};

/**
 * What a rendered block already holds, so that a later block does not repeat it: content hashes and title hashes
 * of the entries rendered, and, for each `(kind, key)` resolved by precedence, the id of the winning entry.
 * It holds no entry text.
 */
export type MemorySeen = { hashes: string[]; titles: string[]; winners: Record<string, string> };

/** An entry prepared for rendering: redacted, on one line, with its fingerprints. */
export type ViewItem = {
  entry: StoredMemoryEntry;
  channel: MemoryChannel;
  label: string | undefined;
  text: string;
  hash: string;
  titleHash: string | undefined;
  conflictKey: string | undefined;
};

/** Redacts and flattens an entry, and computes its fingerprints. */
export function toViewItem(entry: StoredMemoryEntry, redact: (text: string) => string): ViewItem {
  const rawLabel = entry.title ?? entry.key;
  const label = rawLabel === undefined ? undefined : oneLine(redact(rawLabel));
  const text = oneLine(redact(entry.text));
  const title = entry.title === undefined ? undefined : oneLine(redact(entry.title)).toLowerCase();
  return {
    entry,
    channel: CHANNEL_OF[entry.scope.kind],
    label: label === '' ? undefined : label,
    text,
    hash: contentHash(text),
    titleHash: title === undefined || title === '' ? undefined : contentHash(title),
    conflictKey: entry.key === undefined ? undefined : JSON.stringify([entry.kind, entry.key]),
  };
}

/**
 * Keeps one entry per `(kind, key)`: the one whose scope kind comes first in the precedence list for its kind.
 * A key already resolved in `seen` keeps its earlier winner. The order of `items` is kept.
 */
export function applyPrecedence(items: readonly ViewItem[], precedence: MemoryPrecedence, seen?: MemorySeen) {
  const winners = new Map<string, ViewItem>();
  for (const item of items) {
    if (item.conflictKey === undefined) continue;
    const best = winners.get(item.conflictKey);
    if (best === undefined || rank(item, precedence) < rank(best, precedence)) winners.set(item.conflictKey, item);
  }
  return items.filter((item) => {
    if (item.conflictKey === undefined) return true;
    const earlier = seen?.winners[item.conflictKey];
    if (earlier !== undefined) return earlier === item.entry.id;
    return winners.get(item.conflictKey) === item;
  });
}

function rank(item: ViewItem, precedence: MemoryPrecedence): number {
  const order = precedence[item.entry.kind] ?? precedence['*'] ?? [];
  const index = order.indexOf(item.entry.scope.kind);
  return index < 0 ? order.length : index;
}

/** The winning entry id of every `(kind, key)` among `items` (already resolved by precedence), sorted by key. */
export function winnersOf(items: readonly ViewItem[], earlier?: MemorySeen): Record<string, string> {
  const winners: Record<string, string> = { ...earlier?.winners };
  for (const item of items) if (item.conflictKey !== undefined) winners[item.conflictKey] ??= item.entry.id;
  return Object.fromEntries(Object.entries(winners).sort(([a], [b]) => compareText(a, b)));
}

/** Which fingerprints to dedupe on. */
export type DedupeOptions = { byHash: boolean; byTitle: boolean };

/** What the block builders need from the manager. */
export type MemoryEnv = {
  store: MemoryStore;
  scopes: readonly MemoryScope[];
  precedence: MemoryPrecedence;
  redact: (text: string) => string;
  dedupeOptions: DedupeOptions;
};

/** Drops items whose content (or title) repeats an earlier item or one in `seen`. The first one is kept. */
export function dedupe(items: readonly ViewItem[], { byHash, byTitle }: DedupeOptions, seen?: MemorySeen) {
  const hashes = new Set(seen?.hashes);
  const titles = new Set(seen?.titles);
  return items.filter((item) => {
    if (byHash && hashes.has(item.hash)) return false;
    if (byTitle && item.titleHash !== undefined && titles.has(item.titleHash)) return false;
    hashes.add(item.hash);
    if (item.titleHash !== undefined) titles.add(item.titleHash);
    return true;
  });
}

const KIND_RANK: Readonly<Record<string, number>> = { constraint: 0, preference: 1 };
const SCOPE_RANK: Readonly<Record<MemoryScopeKind, number>> = {
  agent: 0,
  user: 1,
  org: 2,
  team: 3,
  project: 4,
  task: 5,
};

/**
 * The content order of the pinned block: constraints, then preferences, then other kinds by name; then scope
 * kind, label, text and id. It uses neither times nor scores, so the same entries always render in the same order.
 */
export function compareByContent(a: ViewItem, b: ViewItem): number {
  const ka = KIND_RANK[a.entry.kind] ?? 2;
  const kb = KIND_RANK[b.entry.kind] ?? 2;
  return (
    ka - kb ||
    compareText(a.entry.kind, b.entry.kind) ||
    SCOPE_RANK[a.entry.scope.kind] - SCOPE_RANK[b.entry.scope.kind] ||
    compareText(a.label ?? '', b.label ?? '') ||
    compareText(a.text, b.text) ||
    compareText(a.entry.id, b.entry.id)
  );
}
