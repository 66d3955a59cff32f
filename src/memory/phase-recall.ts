import { formatScope } from './memory-store.ts';
import {
  applyPrecedence,
  CHANNEL_OF,
  dedupe,
  type MemoryChannel,
  type MemoryEnv,
  type MemorySeen,
  toViewItem,
  type ViewItem,
  winnersOf,
} from './memory-view.ts';
import { CHANNEL_HEADINGS, headerTokens, joinBlock, type MemoryBlock, renderSection } from './render-memory.ts';

/** One retrieval of a phase recall: up to `topK` entries of one channel. */
export type PhaseQuery = {
  channel: MemoryChannel;
  topK: number;
  /** Only these entry kinds. */
  kinds?: string[];
  /** Only entries with all of these tags. */
  tags?: string[];
  /** The label passed to the store. @default `<phase>_<channel>` */
  name?: string;
  /** A budget for this section, within the phase budget. */
  maxTokens?: number;
};

/** How one phase recalls memory: its queries, rendered in order, within `maxTokens` in all. */
export type PhaseRecallSpec = { maxTokens: number; queries: PhaseQuery[] };

/** What a phase recall is about. */
export type PhaseContext = {
  /** Text to rank entries by (e.g. the goal or the current step). Without it, the newest entries come first. */
  text?: string;
  /** Only entries with all of these tags, in every query. */
  tags?: string[];
  /** A block already in the prompt (normally the pinned block): its entries and resolved keys are not repeated. */
  exclude?: MemoryBlock;
};

/**
 * The default phase recalls (seed 000): gather reads agent k=4, user k=3, org/team/project k=2; plan reads agent
 * k=3, user k=3; verify reads org/team/project k=3, agent k=2. The token budgets (gather 400, plan 300, verify
 * 300) are agency's defaults. Other phases (e.g. `act`) recall nothing unless configured.
 */
export const DEFAULT_PHASE_RECALL: Readonly<Record<string, PhaseRecallSpec>> = {
  gather: {
    maxTokens: 400,
    queries: [
      { channel: 'agent', topK: 4 },
      { channel: 'user', topK: 3 },
      { channel: 'shared', topK: 2 },
    ],
  },
  plan: {
    maxTokens: 300,
    queries: [
      { channel: 'agent', topK: 3 },
      { channel: 'user', topK: 3 },
    ],
  },
  verify: {
    maxTokens: 300,
    queries: [
      { channel: 'shared', topK: 3 },
      { channel: 'agent', topK: 2 },
    ],
  },
};

// Extra candidates per query, so that dedupe and precedence still leave `topK` to render.
const OVERFETCH = 3;

/** Builds the recall block of one phase. */
export async function buildPhaseBlock(
  env: MemoryEnv,
  phase: string,
  spec: PhaseRecallSpec,
  context: PhaseContext,
): Promise<MemoryBlock> {
  const { items, sectionOf, read } = await fetchCandidates(env, phase, spec, context);
  const { exclude } = context;
  const resolved = applyPrecedence(items, env.precedence, exclude?.seen);
  const kept = dedupe(resolved, env.dedupeOptions, exclude?.seen);
  const header = `# Memory for the ${phase} phase`;
  let left = spec.maxTokens - headerTokens(header);
  const sections = spec.queries.map((query, index) => {
    const mine = kept.filter((item) => sectionOf.get(item) === index).slice(0, query.topK);
    const section = renderSection(CHANNEL_HEADINGS[query.channel], mine, Math.min(left, query.maxTokens ?? left));
    left -= section.tokens;
    return section;
  });
  const block = joinBlock(sections, { header, scopes: read, winners: winnersOf(resolved, exclude?.seen) });
  return { ...block, seen: mergeSeen(block.seen, exclude?.seen) };
}

/** Runs the phase queries; each entry is kept once, in the section of the first query that found it. */
async function fetchCandidates(env: MemoryEnv, phase: string, spec: PhaseRecallSpec, context: PhaseContext) {
  const { text, tags = [] } = context;
  const read: string[] = [];
  const fetched = await Promise.all(
    spec.queries.map(async (query) => {
      const scopes = env.scopes.filter((scope) => CHANNEL_OF[scope.kind] === query.channel);
      read.push(...scopes.map(formatScope));
      if (scopes.length === 0 || query.topK <= 0) return [];
      return env.store.query(scopes, {
        name: query.name ?? `${phase}_${query.channel}`,
        text,
        ...(query.tags === undefined && tags.length === 0 ? {} : { tags: [...(query.tags ?? []), ...tags] }),
        kinds: query.kinds,
        topK: query.topK * OVERFETCH,
      });
    }),
  );
  const items: ViewItem[] = [];
  const sectionOf = new Map<ViewItem, number>();
  const ids = new Set<string>();
  fetched.forEach((entries, section) => {
    for (const entry of entries) {
      const id = `${formatScope(entry.scope)}\n${entry.id}`;
      if (ids.has(id)) continue;
      ids.add(id);
      const item = toViewItem(entry, env.redact);
      sectionOf.set(item, section);
      items.push(item);
    }
  });
  return { items, sectionOf, read };
}

function mergeSeen(mine: MemorySeen, earlier: MemorySeen | undefined): MemorySeen {
  if (earlier === undefined) return mine;
  return {
    hashes: [...new Set([...earlier.hashes, ...mine.hashes])].sort(),
    titles: [...new Set([...earlier.titles, ...mine.titles])].sort(),
    winners: mine.winners,
  };
}
