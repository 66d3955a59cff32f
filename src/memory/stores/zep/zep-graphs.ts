import { AgencyError } from '../../../core/errors.ts';
import { formatScope, type MemoryScope } from '../../memory-store.ts';
import type { ZepCalls } from './zep-calls.ts';
import { entriesOfEpisodes, type EpisodeEntry } from './zep-episodes.ts';
import { graphIdOf, scopeOfGraphId } from './zep-graph-ids.ts';

const PAGE = 100;

/** The Zep graphs of one store: made on first use, read whole, and listed back as scopes. */
export function createZepGraphs(zep: ZepCalls, prefix: string, lastn: number) {
  const ensured = new Set<string>();
  return {
    /** Creates the graph unless it exists (asked once per graph and store). */
    async ensure(graphId: string): Promise<void> {
      if (ensured.has(graphId)) return;
      if ((await zep.getGraph(graphId)) === null) await zep.createGraph(graphId);
      ensured.add(graphId);
    },

    /**
     * The agency entries of a scope's graph, newest episode first (none when the graph does not exist).
     *
     * @throws AgencyError `limit_exceeded` when the graph holds `lastn` episodes or more: older ones would be unseen.
     */
    async episodesOf(scope: MemoryScope): Promise<EpisodeEntry[]> {
      const graphId = graphIdOf(prefix, scope);
      const episodes = await zep.listEpisodes(graphId, lastn);
      if (episodes !== null && episodes.length >= lastn) {
        throw new AgencyError(
          'limit_exceeded',
          `Zep graph "${graphId}" (${formatScope(scope)}) holds ${lastn} or more episodes, and older ones would be ` +
            `unseen; raise "maxEpisodesPerScope" or delete entries`,
        );
      }
      return entriesOfEpisodes(episodes ?? []);
    },

    /** The scopes of every graph with this store's prefix, sorted. */
    async scopes(): Promise<MemoryScope[]> {
      const found: MemoryScope[] = [];
      for (let page = 1; ; page += 1) {
        const graphs = (await zep.listGraphs(page, PAGE)).graphs ?? [];
        for (const graph of graphs) {
          const scope = graph.graphId === undefined ? undefined : scopeOfGraphId(prefix, graph.graphId);
          if (scope !== undefined) found.push(scope);
        }
        if (graphs.length < PAGE) break;
      }
      return found.sort((a, b) => formatScope(a).localeCompare(formatScope(b)));
    },
  };
}
