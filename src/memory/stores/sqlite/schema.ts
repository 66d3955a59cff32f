import type { DatabaseSync } from 'node:sqlite';
import { AgencyError } from '../../../core/errors.ts';

/**
 * The schema, one migration per version; `PRAGMA user_version` holds the version a file is at. A migration runs
 * once, in a transaction, when a store opens a file at an older version. Add a version, never edit one.
 *
 * - `memory_entries`: one row per entry; `rid` is never reused, so it grows with every write. `doc` is the stored entry as JSON (which escapes NUL and lone surrogates,
 *   so an entry comes back exactly as put). `scope`, `id`, `key` and `kind` hold JSON strings of their values, for
 *   the same reason; `created_ms`, `expires_ms` and `tokens` are what queries filter and order by.
 * - `memory_tags`: one row per tag of an entry, for tag filters.
 * - `memory_fts`: FTS5 over the labels (title, key and tags) and the text, rowid = the entry's `rid`.
 * - `memory_vectors`: an entry's unit vector (float32 little-endian) and the model that made it; `seq` grows with
 *   every write, so a process knows which vectors changed since it last looked.
 */
export const MIGRATIONS: readonly string[] = [
  `CREATE TABLE memory_entries (
     rid INTEGER PRIMARY KEY AUTOINCREMENT,
     scope TEXT NOT NULL,
     id TEXT NOT NULL,
     key TEXT,
     kind TEXT NOT NULL,
     created_ms INTEGER NOT NULL,
     expires_ms INTEGER,
     tokens INTEGER NOT NULL,
     doc TEXT NOT NULL
   ) STRICT;
   CREATE UNIQUE INDEX memory_entries_id ON memory_entries (scope, id);
   CREATE UNIQUE INDEX memory_entries_key ON memory_entries (scope, key) WHERE key IS NOT NULL;
   CREATE INDEX memory_entries_recent ON memory_entries (scope, created_ms DESC, id);
   CREATE TABLE memory_tags (tag TEXT NOT NULL, rid INTEGER NOT NULL, PRIMARY KEY (tag, rid)) WITHOUT ROWID, STRICT;
   CREATE INDEX memory_tags_rid ON memory_tags (rid);
   CREATE VIRTUAL TABLE memory_fts USING fts5 (labels, body, tokenize = 'unicode61 remove_diacritics 2');
   CREATE TABLE memory_vectors (
     rid INTEGER PRIMARY KEY,
     model TEXT NOT NULL,
     seq INTEGER NOT NULL,
     vec BLOB NOT NULL
   ) STRICT;
   CREATE INDEX memory_vectors_seq ON memory_vectors (seq);`,
];

/** The schema version this agency writes. */
export const SCHEMA_VERSION = MIGRATIONS.length;

/**
 * Brings the file up to {@link SCHEMA_VERSION}.
 * @throws AgencyError `memory_store_invalid` when the file is at a newer version (written by a newer agency).
 */
export function migrate(db: DatabaseSync, file: string): void {
  const version = userVersion(db);
  if (version > SCHEMA_VERSION) {
    throw new AgencyError(
      'memory_store_invalid',
      `${file}: the memory store is at schema version ${version}, and this agency knows up to ${SCHEMA_VERSION}; ` +
        'open it with a newer agency',
      { details: { file, version } },
    );
  }
  if (version === SCHEMA_VERSION) return;
  db.exec('BEGIN IMMEDIATE');
  try {
    // Another process may have migrated the file while this one waited for the lock.
    for (let next = userVersion(db); next < SCHEMA_VERSION; next++) {
      db.exec(MIGRATIONS[next] as string);
      db.exec(`PRAGMA user_version = ${next + 1}`);
    }
    db.exec('COMMIT');
  } catch (error) {
    db.exec('ROLLBACK');
    throw error;
  }
}

function userVersion(db: DatabaseSync): number {
  return Number((db.prepare('PRAGMA user_version').get() as { user_version: number }).user_version);
}
