import { createClient } from 'redis';
import { AgencyError, errorMessage } from '../../../core/errors.ts';
import { newId } from '../../../core/ids.ts';
import { printableUrl } from '../../../core/printable-url.ts';
import { embeddedText, embeddingSettings, embedTexts, type MemoryEmbedding } from '../../embedding.ts';
import { compareText } from '../../entry-text.ts';
import { type MemoryScope, type MemoryStore, parseScope } from '../../memory-store.ts';
import { checkEntry, checkScope } from '../../store-rules.ts';
import { redisKeysOf } from './redis-keys.ts';
import { createRedisSearch, type RedisReader } from './redis-search.ts';
import { deleteRedisEntry, putRedisEntry, type RunScript } from './redis-write.ts';

/** Options for {@link openRedisMemoryStore}. */
export type RedisMemoryStoreOptions = {
  /** `redis://[user:password@]host:port[/db]` (or `rediss://` for TLS). */
  url: string;
  /** The start of every key the store writes, so stores can share a database. @default 'agency:memory' */
  prefix?: string;
  /** How many vector matches join a query's candidates at most (four times its topK, up to this). @default 1000 */
  candidateCap?: number;
  /** Vectors: with a model, entries are embedded at put and a query's text also matches by meaning. */
  embedding?: MemoryEmbedding;
  /** The clock for `createdAt` and `ttl`. @default Date.now */
  now?: () => number;
  /** New entry ids. @default `mem_…` ids */
  generateId?: () => string;
};

/** A {@link MemoryStore} in Redis. */
export type RedisMemoryStore = MemoryStore & {
  /** Every scope that holds an entry (expired ones included), sorted. */
  scopes(): Promise<MemoryScope[]>;
  /** Closes the connection. Safe to call twice. */
  close(): Promise<void>;
};

/**
 * A {@link MemoryStore} in plain Redis 7 (the `redis` client, no modules): each scope's entries in hashes, a sorted
 * set by time, and an inverted index of one sorted set per word, ranked by term overlap (no BM25: Redis without
 * RediSearch has no full-text ranking). Every put and delete is one Lua script, so it is atomic and racing puts of
 * one key leave one entry. Optional vectors are kept in Redis and searched by brute-force cosine in process.
 *
 * @throws AgencyError `memory_store_unavailable` naming the URL (its password hidden) when the server cannot be
 *   reached or goes away mid-call.
 * @example
 * const store = await openRedisMemoryStore({ url: 'redis://127.0.0.1:6379' });
 */
export async function openRedisMemoryStore(options: RedisMemoryStoreOptions): Promise<RedisMemoryStore> {
  const { prefix = 'agency:memory', candidateCap = 1_000, now = Date.now } = options;
  if (!/^[A-Za-z0-9_.:-]{1,100}$/.test(prefix)) {
    throw new AgencyError(
      'invalid_argument',
      `"prefix" ${JSON.stringify(prefix)} must be 1–100 letters, digits, "_.:-"`,
    );
  }
  if (!(Number.isInteger(candidateCap) && candidateCap > 0)) {
    throw new AgencyError('invalid_argument', '"candidateCap" must be a positive integer');
  }
  const where = `Redis memory store at ${printableUrl(options.url)}`;
  const unavailable = (error: unknown) =>
    error instanceof AgencyError
      ? error
      : new AgencyError('memory_store_unavailable', `${where}: ${hidePassword(errorMessage(error), options.url)}`);
  const client = clientOf(options.url);
  // Connection errors reach the calls that were in flight; the client's error event needs only a listener.
  client.on('error', () => undefined);
  await client.connect().catch((error: unknown) => {
    throw unavailable(error);
  });
  const guard = <T>(call: () => Promise<T>): Promise<T> =>
    call().catch((error: unknown) => Promise.reject(unavailable(error)));
  const keys = redisKeysOf(prefix);
  const run: RunScript = (script, args) => client.eval(script, { keys: [], arguments: args });
  const embedding = embeddingSettings(options.embedding);
  const nextId = options.generateId ?? (() => newId('mem'));
  const search = createRedisSearch(readerOf(client), { candidateCap, embedding, now, keys });

  return {
    async put(scope, entry) {
      checkScope(scope);
      checkEntry(entry);
      const [vector] = embedding === undefined ? [] : await embedTexts(embedding, [embeddedText(entry)]);
      const withVector =
        vector === undefined || embedding === undefined ? undefined : { model: embedding.name, vector };
      return guard(() => putRedisEntry(run, keys, { scope, entry, nextId, now, vector: withVector }));
    },
    query: (scopes, query) => guard(() => search.query(scopes, query)),
    async delete(scope, id) {
      checkScope(scope);
      if (typeof id !== 'string') throw new AgencyError('invalid_argument', 'Memory entry id must be a string');
      return guard(() => deleteRedisEntry(run, keys, scope, id));
    },
    async scopes() {
      const members = await guard(() => client.sMembers(keys.scopes));
      return members
        .map((member) => JSON.parse(member) as string)
        .sort(compareText)
        .map(parseScope);
    },
    async close() {
      if (client.isOpen) await client.close().catch(() => undefined);
    },
  };
}

// Calls fail at once while the connection is down (no offline queue), and after three failed reconnects the client
// gives up: a dead server is an error, never a hang.
function clientOf(url: string) {
  return createClient({
    url,
    disableOfflineQueue: true,
    socket: { connectTimeout: 5_000, reconnectStrategy: (retries) => (retries >= 3 ? false : 100 * (retries + 1)) },
  });
}

function readerOf(client: ReturnType<typeof clientOf>): RedisReader {
  return {
    zUnionWithScores: (keys) => client.zUnionWithScores(keys as [string, ...string[]]),
    zRangeWithScores: (key) => client.zRangeWithScores(key, 0, -1, { REV: true }),
    zmScore: (key, members) => client.zmScore(key, members),
    hmGet: (key, fields) => client.hmGet(key, fields),
    zRangeByScore: (key, min) => client.zRangeByScore(key, min, '+inf'),
  };
}

function hidePassword(message: string, url: string): string {
  const password = URL.canParse(url) ? decodeURIComponent(new URL(url).password) : '';
  return password === '' ? message : message.replaceAll(password, '***');
}
