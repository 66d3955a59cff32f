import { estimateTokens } from '../../../core/tokens.ts';
import { vectorBytes } from '../../embedding.ts';
import { wordsOf } from '../../entry-text.ts';
import { formatScope, type MemoryEntry, type MemoryScope, type StoredMemoryEntry } from '../../memory-store.ts';
import { columnValue, expiresAt, indexedText, indexSafe, storedEntryOf } from '../../store-rules.ts';
import { keyPart, type RedisKeys } from './redis-keys.ts';
import { DELETE_SCRIPT, PUT_SCRIPT } from './redis-scripts.ts';

/** What the writes need of a client: one script call. */
export type RunScript = (script: string, args: string[]) => Promise<unknown>;

/** The facts a query filters and orders by, kept beside each entry so a query reads no entry it does not return. */
export type EntryMeta = {
  kind: string;
  key?: string;
  tags: string[];
  expires: number | null;
  tokens: number;
  row: number;
};

/** What one put writes. */
export type RedisPutInput = {
  scope: MemoryScope;
  entry: MemoryEntry;
  nextId: () => string;
  now: () => number;
  vector: { model: string; vector: Float32Array } | undefined;
};

/** Writes one entry by one script: it replaces the entry with its id, or the one holding its key, and its index. */
export async function putRedisEntry(run: RunScript, keys: RedisKeys, input: RedisPutInput): Promise<StoredMemoryEntry> {
  const scopeText = formatScope(input.scope);
  const stored = storedEntryOf(input.scope, input.entry, '', input.now);
  const { id: _, ...doc } = stored;
  const meta = {
    kind: stored.kind,
    ...(stored.key === undefined ? {} : { key: stored.key }),
    tags: stored.tags ?? [],
    expires: expiresAt(stored),
    tokens: estimateTokens(stored.text),
  };
  const vector =
    input.vector === undefined
      ? ''
      : JSON.stringify({
          m: input.vector.model,
          s: scopeText,
          v: Buffer.from(vectorBytes(input.vector.vector)).toString('base64'),
        });
  const id = (await run(PUT_SCRIPT, [
    keys.scope(scopeText),
    keys.scopes,
    columnValue(scopeText),
    input.entry.id === undefined ? '' : columnValue(input.entry.id),
    columnValue(input.nextId()),
    input.entry.key === undefined ? '' : columnValue(input.entry.key),
    JSON.stringify(doc),
    JSON.stringify(meta),
    String(Date.parse(stored.metadata.createdAt)),
    wordWeights(input.entry),
    keys.rows,
    keys.vectorRows,
    keys.vectorData,
    keys.vectorIds,
    vector,
  ])) as string;
  return { ...stored, id: JSON.parse(id) as string };
}

/** Deletes one entry by one script; true when it was there. */
export async function deleteRedisEntry(
  run: RunScript,
  keys: RedisKeys,
  scope: MemoryScope,
  id: string,
): Promise<boolean> {
  const scopeText = formatScope(scope);
  const removed = await run(DELETE_SCRIPT, [
    keys.scope(scopeText),
    keys.scopes,
    columnValue(scopeText),
    columnValue(id),
    keys.vectorRows,
    keys.vectorData,
    keys.vectorIds,
  ]);
  return Number(removed) === 1;
}

// The words of an entry with their weights, as the in-memory store scores them: 2 for a word of the title, key or
// tags, 1 for a word only in the text.
function wordWeights(entry: MemoryEntry): string {
  const { labels, body } = indexedText(entry);
  const labelWords = wordsOf(indexSafe(labels));
  const weights = new Map<string, number>();
  for (const word of wordsOf(indexSafe(body))) weights.set(word, 1);
  for (const word of labelWords) weights.set(word, 2);
  return [...weights].map(([word, weight]) => `${keyPart(word)}=${weight}`).join(' ');
}
