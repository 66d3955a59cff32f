import { columnValue } from '../../store-rules.ts';

/**
 * The key names of a store under `prefix`. User text (scope, id, key, word) never appears raw in a key name: a key
 * part is the base64url of its JSON string, so `:`, `*`, `?`, `[`, NUL and lone surrogates in it cannot reach another
 * key or act as a pattern. Hash fields and set members are JSON strings (`columnValue`), which Redis stores as is.
 */
export type RedisKeys = ReturnType<typeof redisKeysOf>;

/** The keys of the store under `prefix`. */
export function redisKeysOf(prefix: string) {
  return {
    /** Set of every scope (JSON string of `kind:id`) that holds an entry. */
    scopes: `${prefix}:scopes`,
    /** Counter of put rows; a row number is the vector index's row id. */
    rows: `${prefix}:rows`,
    /** Sorted set of the rows with a vector, scored by row, so a reader catches up on the rows it has not seen. */
    vectorRows: `${prefix}:vec:rows`,
    /** Hash row → vector payload (model, scope, base64 of the Float32Array). */
    vectorData: `${prefix}:vec:data`,
    /** Hash row → entry id (JSON string). */
    vectorIds: `${prefix}:vec:ids`,
    /** The base key of one scope's hashes, sorted sets and word index (`:docs`, `:meta`, `:time`, `:w:<word>`, …). */
    scope: (scopeText: string) => `${prefix}:s:${keyPart(scopeText)}`,
    /** One word's sorted set in a scope: entry ids scored 2 (word in title, key or tags) or 1 (only in text). */
    word: (base: string, word: string) => `${base}:w:${keyPart(word)}`,
  };
}

/** A key part for user text: base64url of its JSON string (no `:`, `*`, `?`, `[`, `=` or space). */
export function keyPart(text: string): string {
  return Buffer.from(columnValue(text), 'utf8').toString('base64url');
}
