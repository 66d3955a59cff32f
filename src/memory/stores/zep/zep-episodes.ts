import type { Zep } from '@getzep/zep-cloud';
import { AgencyError } from '../../../core/errors.ts';
import type { StoredMemoryEntry } from '../../memory-store.ts';

/**
 * The most characters Zep takes in one episode's `data` (graph.add); Zep refuses longer data, so the store refuses
 * an entry whose stored form is longer before it calls Zep.
 */
export const ZEP_EPISODE_DATA_LIMIT = 10_000;

/** The label in an episode's metadata that marks it as an agency memory entry. */
const FORMAT = 'agency.memory/1';

/** An agency entry read back from an episode, with the episode that holds it. */
export type EpisodeEntry = { entry: StoredMemoryEntry; uuid: string; createdAt: string };

/**
 * The graph.add request that stores one entry: the entry as JSON (`type: json`, so Zep also extracts facts from
 * it into the graph), and its id and key in the episode's metadata.
 *
 * @throws AgencyError `limit_exceeded` when the entry's JSON is over {@link ZEP_EPISODE_DATA_LIMIT} characters.
 */
export function episodeRequest(graphId: string, stored: StoredMemoryEntry): Zep.AddDataRequest {
  const data = JSON.stringify(stored);
  if (data.length > ZEP_EPISODE_DATA_LIMIT) {
    throw new AgencyError(
      'limit_exceeded',
      `Memory entry "${stored.id.slice(0, 80)}" is ${data.length} characters as JSON; a Zep episode holds at most ` +
        `${ZEP_EPISODE_DATA_LIMIT}. Shorten its text or metadata, or use the SQLite, PostgreSQL or Redis store`,
    );
  }
  return {
    graphId,
    type: 'json',
    data,
    createdAt: stored.metadata.createdAt,
    sourceDescription: 'agency memory entry',
    metadata: { format: FORMAT, id: stored.id, ...(stored.key === undefined ? {} : { key: stored.key }) },
  };
}

/** The agency entries among a graph's episodes, newest first; episodes agency did not write are skipped. */
export function entriesOfEpisodes(episodes: readonly Zep.Episode[]): EpisodeEntry[] {
  const read: EpisodeEntry[] = [];
  for (const episode of episodes) {
    if (episode.metadata?.format !== FORMAT) continue;
    const entry = parseEntry(episode.content);
    if (entry !== undefined) read.push({ entry, uuid: episode.uuid, createdAt: episode.createdAt });
  }
  return read.sort((a, b) => Date.parse(b.createdAt) - Date.parse(a.createdAt));
}

/**
 * One entry per id and per key: when two episodes hold the same id or key (a replacement whose old episode is not
 * deleted yet), the one Zep created last wins.
 */
export function latestEntries(read: readonly EpisodeEntry[]): EpisodeEntry[] {
  const ids = new Set<string>();
  const keys = new Set<string>();
  return read.filter(({ entry }) => {
    if (ids.has(entry.id) || (entry.key !== undefined && keys.has(entry.key))) return false;
    ids.add(entry.id);
    if (entry.key !== undefined) keys.add(entry.key);
    return true;
  });
}

function parseEntry(content: string): StoredMemoryEntry | undefined {
  try {
    const value = JSON.parse(content) as StoredMemoryEntry;
    return typeof value?.id === 'string' && typeof value.text === 'string' && typeof value.metadata === 'object'
      ? value
      : undefined;
  } catch {
    return undefined;
  }
}
