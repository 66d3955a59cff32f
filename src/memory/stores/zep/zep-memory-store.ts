import { randomUUID } from 'node:crypto';
import { AgencyError } from '../../../core/errors.ts';
import { serializeByKey } from '../../../core/serialize-by-key.ts';
import { formatScope, type MemoryScope, type MemoryStore, parseScope } from '../../memory-store.ts';
import {
  checkEntry,
  checkQuery,
  checkScope,
  keywordScore,
  passesFilters,
  queryWords,
  type RankedEntry,
  rankAndTake,
  scopeKeysOf,
  storedEntryOf,
} from '../../store-rules.ts';
import { createZepCalls, type ZepCalls, type ZepConnection } from './zep-calls.ts';
import { createZepGraphs } from './zep-graphs.ts';
import { episodeRequest, latestEntries } from './zep-episodes.ts';
import { graphIdOf } from './zep-graph-ids.ts';

/** Options for {@link openZepMemoryStore}. */
export type ZepMemoryStoreOptions = ZepConnection & {
  /** The start of every graph id this store makes (letters and digits). @default 'agency' */
  graphPrefix?: string;
  /** The most episodes read from one scope's graph per query; a fuller graph is refused, not cut. @default 1000 */
  maxEpisodesPerScope?: number;
  /** Milliseconds since the epoch, for `createdAt` and `ttl`. @default Date.now */
  now?: () => number;
};

/** A {@link MemoryStore} over Zep graphs, with the scopes it holds and a close. */
export type ZepMemoryStore = MemoryStore & { scopes(): Promise<MemoryScope[]>; close(): Promise<void> };

/**
 * A {@link MemoryStore} over Zep (`@getzep/zep-cloud`): one Zep graph per scope, one episode per entry (the entry
 * as JSON, so Zep also builds its knowledge graph from it). Queries read a scope's episodes and filter, rank and
 * cut them by the store contract's rules here (keyword scoring as the in-memory store; Zep's semantic graph search
 * is not used), so TTL, tags, kinds and keys hold exactly. Writes to one scope from one store are serialized; an
 * entry whose JSON is over 10,000 characters is refused. See docs/memory.md, "Zep".
 *
 * @example
 * const store = await openZepMemoryStore({ apiKey: process.env.ZEP_API_KEY ?? '' });
 * await store.put({ kind: 'user', id: 'u1' }, { kind: 'preference', key: 'tone', text: 'Short answers.' });
 */
export async function openZepMemoryStore(options: ZepMemoryStoreOptions): Promise<ZepMemoryStore> {
  const settings = checkOptions(options);
  return createZepMemoryStore(createZepCalls(options), settings);
}

type Settings = { prefix: string; lastn: number; now: () => number };

function checkOptions(options: ZepMemoryStoreOptions): Settings {
  if (typeof options.apiKey !== 'string' || options.apiKey.trim() === '') {
    throw new AgencyError('missing_api_key', 'The Zep memory store needs an API key; set ZEP_API_KEY');
  }
  const prefix = options.graphPrefix ?? 'agency';
  if (!/^[a-z0-9]{1,40}$/.test(prefix)) {
    throw new AgencyError('invalid_argument', '"graphPrefix" must be 1 to 40 lowercase letters or digits');
  }
  const lastn = options.maxEpisodesPerScope ?? 1000;
  if (!Number.isInteger(lastn) || lastn < 1) {
    throw new AgencyError('invalid_argument', '"maxEpisodesPerScope" must be a positive integer');
  }
  return { prefix, lastn, now: options.now ?? Date.now };
}

/** The store over any {@link ZepCalls}. */
export function createZepMemoryStore(zep: ZepCalls, { prefix, lastn, now }: Settings): ZepMemoryStore {
  const graphs = createZepGraphs(zep, prefix, lastn);
  const locks = new Map<string, Promise<unknown>>();
  const serial = <T>(scope: MemoryScope, run: () => Promise<T>) => serializeByKey(locks, formatScope(scope), run);
  const episodesOf = graphs.episodesOf;
  const ensureGraph = graphs.ensure;

  return {
    async put(scope, entry) {
      checkScope(scope);
      checkEntry(entry);
      return serial(scope, async () => {
        const graphId = graphIdOf(prefix, scope);
        await ensureGraph(graphId);
        const held = await episodesOf(scope);
        const holder = entry.key === undefined ? undefined : latestEntries(held).find((e) => e.entry.key === entry.key);
        const id = entry.id ?? holder?.entry.id ?? `mem_${randomUUID()}`;
        const stored = storedEntryOf(scope, entry, id, now);
        await zep.addEpisode(episodeRequest(graphId, stored));
        // The new episode is written before the old ones go, so the entry is never missing in between.
        const replaced = held.filter(
          (e) => e.entry.id === id || (entry.key !== undefined && e.entry.key === entry.key),
        );
        for (const old of replaced) await zep.deleteEpisode(old.uuid);
        return structuredClone(stored);
      });
    },

    async query(wanted, query) {
      const keys = scopeKeysOf(wanted);
      checkQuery(query);
      if (keys.length === 0 || query.topK === 0) return [];
      const words = new Set(queryWords(query.text));
      const held = await Promise.all(keys.map((key) => episodesOf(parseScope(key))));
      const time = now();
      const ranked: RankedEntry[] = [];
      for (const { entry } of held.flatMap(latestEntries)) {
        if (!passesFilters(entry, query, time)) continue;
        const score = keywordScore(entry, words);
        if (words.size > 0 && score === 0) continue;
        ranked.push({ entry, score });
      }
      return rankAndTake(ranked, query);
    },

    async delete(scope, id) {
      checkScope(scope);
      if (typeof id !== 'string') throw new AgencyError('invalid_argument', 'Memory entry id must be a string');
      return serial(scope, async () => {
        const held = (await episodesOf(scope)).filter((e) => e.entry.id === id);
        let removed = false;
        for (const old of held) removed = (await zep.deleteEpisode(old.uuid)) || removed;
        return removed;
      });
    },

    scopes: graphs.scopes,

    async close() {},
  };
}
