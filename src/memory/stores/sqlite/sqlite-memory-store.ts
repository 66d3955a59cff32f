import { DatabaseSync } from 'node:sqlite';
import { AgencyError, errorMessage } from '../../../core/errors.ts';
import { newId } from '../../../core/ids.ts';
import { estimateTokens } from '../../../core/tokens.ts';
import { embeddedText, embeddingSettings, embedTexts, type MemoryEmbedding, vectorBytes } from '../../embedding.ts';
import { compareText } from '../../entry-text.ts';
import {
  formatScope,
  type MemoryEntry,
  type MemoryScope,
  type MemoryStore,
  parseScope,
  type StoredMemoryEntry,
} from '../../memory-store.ts';
import {
  checkEntries,
  checkEntry,
  checkScope,
  columnValue,
  expiresAt,
  indexedText,
  indexSafe,
  storedEntryOf,
} from '../../store-rules.ts';
import { migrate } from './schema.ts';
import { createSqliteSearch } from './sqlite-search.ts';

/** Options for {@link openSqliteMemoryStore}. */
export type SqliteMemoryStoreOptions = {
  /** The database file; created (with its folder's WAL files) when missing. `:memory:` for a private one. */
  path: string;
  /** How long a write waits for another process's lock, in ms. @default 5000 */
  busyTimeoutMs?: number;
  /**
   * How many of the newest entries that match a query's words are ranked (BM25) at most. Broad words match many
   * entries; ranking only the newest `candidateCap` of them keeps such queries fast. @default 1000
   */
  candidateCap?: number;
  /** Vectors: with a model, entries are embedded at put and a query's text also matches by meaning. */
  embedding?: MemoryEmbedding;
  /** The clock for `createdAt` and `ttl`. @default Date.now */
  now?: () => number;
  /** New entry ids. @default `mem_…` ids */
  generateId?: () => string;
};

/** A {@link MemoryStore} in a SQLite file. */
export type SqliteMemoryStore = MemoryStore & {
  readonly path: string;
  /** Every scope that holds an entry (expired ones included), sorted: for operators listing a store. */
  scopes(): MemoryScope[];
  /** Closes the file; later calls fail. Safe to call twice. */
  close(): void;
};

/**
 * A {@link MemoryStore} in one SQLite file (`node:sqlite`, no native addon): WAL so readers never block the writer,
 * a busy timeout so several processes can write the same file, FTS5 with BM25 for text, and optional vectors as
 * float32 blobs searched by brute-force cosine. Every write is one transaction, so a process killed mid-write
 * leaves the file as it was before that write. The schema is versioned (`PRAGMA user_version`) and migrated on open.
 *
 * @throws AgencyError `memory_store_unavailable` when the file cannot be opened, `memory_store_invalid` when it is
 *   not a memory store this agency can read.
 * @example
 * const store = openSqliteMemoryStore({ path: '/srv/agency/memory.db' });
 */
export function openSqliteMemoryStore(options: SqliteMemoryStoreOptions): SqliteMemoryStore {
  const { path, busyTimeoutMs = 5_000, candidateCap = 1_000, now = Date.now } = options;
  if (!(Number.isInteger(candidateCap) && candidateCap > 0)) {
    throw new AgencyError('invalid_argument', '"candidateCap" must be a positive integer');
  }
  const embedding = embeddingSettings(options.embedding);
  const nextId = options.generateId ?? (() => newId('mem'));
  const db = openDatabase(path, busyTimeoutMs);
  const write = createWriter(db, embedding?.name);
  const search = createSqliteSearch(db, { candidateCap, embedding, now });

  return {
    path,
    async put(scope, entry) {
      checkScope(scope);
      checkEntry(entry);
      const [vector] = embedding === undefined ? [] : await embedTexts(embedding, [embeddedText(entry)]);
      return write.put(scope, [entry], nextId, now, [vector])[0] as StoredMemoryEntry;
    },
    async putMany(scope, entries) {
      checkScope(scope);
      checkEntries(entries);
      const vectors = embedding === undefined ? [] : await embedTexts(embedding, entries.map(embeddedText));
      return write.put(scope, entries, nextId, now, vectors);
    },
    query: (scopes, query) => search.query(scopes, query),
    async delete(scope, id) {
      checkScope(scope);
      if (typeof id !== 'string') throw new AgencyError('invalid_argument', 'Memory entry id must be a string');
      return write.delete(formatScope(scope), id);
    },
    scopes() {
      const rows = db.prepare('SELECT DISTINCT scope FROM memory_entries').all() as Array<{ scope: string }>;
      return rows
        .map((row) => JSON.parse(row.scope) as string)
        .sort(compareText)
        .map(parseScope);
    },
    close() {
      if (db.isOpen) db.close();
    },
  };
}

function openDatabase(path: string, busyTimeoutMs: number): DatabaseSync {
  let db: DatabaseSync;
  try {
    db = new DatabaseSync(path, { timeout: busyTimeoutMs });
  } catch (error) {
    throw new AgencyError('memory_store_unavailable', `${path}: cannot open the memory store: ${errorMessage(error)}`, {
      details: { file: path },
    });
  }
  try {
    db.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = OFF;');
    migrate(db, path);
    return db;
  } catch (error) {
    db.close();
    if (error instanceof AgencyError) throw error;
    const busy = /locked|busy/i.test(errorMessage(error));
    throw new AgencyError(
      busy ? 'memory_store_unavailable' : 'memory_store_invalid',
      `${path}: ${busy ? 'the memory store stayed locked' : 'not a memory store agency can read'}: ${errorMessage(error)}`,
      { details: { file: path } },
    );
  }
}

type Writer = {
  /** Writes entries in order in one transaction; `vectors[i]` is entry i's vector (none without a model). */
  put(
    scope: StoredMemoryEntry['scope'],
    entries: readonly MemoryEntry[],
    nextId: () => string,
    now: () => number,
    vectors: ReadonlyArray<Float32Array | undefined>,
  ): StoredMemoryEntry[];
  delete(scope: string, id: string): boolean;
};

function createWriter(db: DatabaseSync, model: string | undefined): Writer {
  const sql = {
    byId: db.prepare('SELECT rid FROM memory_entries WHERE scope = ? AND id = ?'),
    byKey: db.prepare('SELECT rid, id FROM memory_entries WHERE scope = ? AND key = ?'),
    insert: db.prepare(
      'INSERT INTO memory_entries (scope, id, key, kind, created_ms, expires_ms, tokens, doc) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
    ),
    insertFts: db.prepare('INSERT INTO memory_fts (rowid, labels, body) VALUES (?, ?, ?)'),
    insertTag: db.prepare('INSERT OR IGNORE INTO memory_tags (tag, rid) VALUES (?, ?)'),
    insertVector: db.prepare(
      'INSERT INTO memory_vectors (rid, model, seq, vec) VALUES (?, ?, (SELECT coalesce(max(seq), 0) + 1 FROM memory_vectors), ?)',
    ),
    removeEntry: db.prepare('DELETE FROM memory_entries WHERE rid = ?'),
    removeFts: db.prepare('DELETE FROM memory_fts WHERE rowid = ?'),
    removeTags: db.prepare('DELETE FROM memory_tags WHERE rid = ?'),
    removeVector: db.prepare('DELETE FROM memory_vectors WHERE rid = ?'),
  };
  const remove = (rid: number) => {
    for (const statement of [sql.removeEntry, sql.removeFts, sql.removeTags, sql.removeVector]) statement.run(rid);
  };
  const ridOf = (row: unknown) => (row === undefined ? undefined : Number((row as { rid: number }).rid));

  const putOne = (scopeKey: string, stored: StoredMemoryEntry, vector: Float32Array | undefined) => {
    const { labels, body } = indexedText(stored);
    const rid = Number(
      sql.insert.run(
        scopeKey,
        columnValue(stored.id),
        stored.key === undefined ? null : columnValue(stored.key),
        columnValue(stored.kind),
        Date.parse(stored.metadata.createdAt),
        expiresAt(stored),
        estimateTokens(stored.text),
        JSON.stringify(stored),
      ).lastInsertRowid,
    );
    sql.insertFts.run(rid, indexSafe(labels), indexSafe(body));
    for (const tag of stored.tags ?? []) sql.insertTag.run(columnValue(tag), rid);
    if (vector !== undefined && model !== undefined) sql.insertVector.run(rid, model, vectorBytes(vector));
  };

  return {
    put(scope, entries, nextId, now, vectors) {
      const scopeKey = columnValue(formatScope(scope));
      return inTransaction(db, () =>
        entries.map((entry, index) => {
          const sameKey =
            entry.key === undefined
              ? undefined
              : (sql.byKey.get(scopeKey, columnValue(entry.key)) as { rid: number; id: string } | undefined);
          const id = entry.id ?? (sameKey === undefined ? nextId() : (JSON.parse(sameKey.id) as string));
          const sameId = ridOf(sql.byId.get(scopeKey, columnValue(id)));
          for (const rid of new Set([sameId, ridOf(sameKey)])) if (rid !== undefined) remove(rid);
          const stored = storedEntryOf(scope, entry, id, now);
          putOne(scopeKey, stored, vectors[index]);
          return stored;
        }),
      );
    },
    delete(scope, id) {
      return inTransaction(db, () => {
        const rid = ridOf(sql.byId.get(columnValue(scope), columnValue(id)));
        if (rid === undefined) return false;
        remove(rid);
        return true;
      });
    },
  };
}

/** Runs `body` in a write transaction that takes the lock at once (so a busy file waits, never deadlocks). */
function inTransaction<T>(db: DatabaseSync, body: () => T): T {
  db.exec('BEGIN IMMEDIATE');
  try {
    const result = body();
    db.exec('COMMIT');
    return result;
  } catch (error) {
    if (db.isTransaction) db.exec('ROLLBACK');
    throw error;
  }
}
