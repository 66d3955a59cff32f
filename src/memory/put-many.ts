import type { MemoryEntry, MemoryScope, MemoryStore, StoredMemoryEntry } from './memory-store.ts';
import { checkEntries, checkScope } from './store-rules.ts';

/**
 * Writes `entries` to one scope as a `put` of each in order would, and returns them as stored, in order: through the
 * store's own `putMany` (one transaction per call) where it has one, else one `put` after another (every entry is
 * checked first, so an invalid one writes nothing; a storage failure part-way leaves the entries before it). For
 * bulk loads, call it with batches of a few thousand entries.
 *
 * @throws AgencyError `invalid_argument` naming the position and field of an entry that cannot be stored.
 * @example
 * await putMany(store, { kind: 'agent', id: 'a1' }, facts.map((text) => ({ kind: 'fact', text })));
 */
export async function putMany(
  store: MemoryStore,
  scope: MemoryScope,
  entries: readonly MemoryEntry[],
): Promise<StoredMemoryEntry[]> {
  if (store.putMany !== undefined) return store.putMany(scope, entries);
  checkScope(scope);
  checkEntries(entries);
  const stored: StoredMemoryEntry[] = [];
  for (const entry of entries) stored.push(await store.put(scope, entry));
  return stored;
}
