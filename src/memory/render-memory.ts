import { estimateTokens } from '../core/tokens.ts';
import type { MemoryChannel, MemorySeen, ViewItem } from './memory-view.ts';

/** A rendered memory block, ready to be placed in a prompt. */
export type MemoryBlock = {
  /** The rendered text; `''` when nothing was recalled. It holds no ids, times or scores. */
  text: string;
  /** `estimateTokens(text)`. */
  tokens: number;
  /** How many entries were rendered. */
  count: number;
  /** How many entries were left out to stay within the budgets. */
  omitted: number;
  /** The scopes read, as `kind:id`, sorted. */
  scopes: string[];
  /** What the block holds, for deduping a later block against it (see `buildPhase`). */
  seen: MemorySeen;
};

/** The heading of each channel's section. */
export const CHANNEL_HEADINGS: Readonly<Record<MemoryChannel, string>> = {
  agent: '## Agent memory',
  user: '## User memory',
  shared: '## Org/team/project memory',
  task: '## Task memory',
};

/** One entry as a line: `- [kind] label: text`. */
export function renderLine(item: ViewItem): string {
  const label = item.label === undefined ? '' : `${item.label}: `;
  return `- [${item.entry.kind}] ${label}${item.text}`;
}

/** The separator between sections; it is counted against the section before it. */
const SEPARATOR = '\n\n';

/**
 * A heading and as many of `items` (in order) as fit in `maxTokens`. An item that does not fit is skipped and a
 * later, shorter one may still fit; the section counts its trailing separator, so sections joined by it never go
 * over the sum of their budgets. Returns no text when no item fits.
 */
export function renderSection(heading: string, items: readonly ViewItem[], maxTokens: number) {
  const lines: string[] = [];
  const kept: ViewItem[] = [];
  for (const item of items) {
    const line = renderLine(item);
    if (estimateTokens([heading, ...lines, line].join('\n') + SEPARATOR) > maxTokens) continue;
    lines.push(line);
    kept.push(item);
  }
  const text = kept.length === 0 ? '' : [heading, ...lines].join('\n');
  return {
    text,
    kept,
    omitted: items.length - kept.length,
    tokens: text === '' ? 0 : estimateTokens(text + SEPARATOR),
  };
}

/** The tokens a block heading costs, separator included. */
export function headerTokens(header: string): number {
  return estimateTokens(header + SEPARATOR);
}

/** Joins sections into a block under an optional heading (left out when no section has text). */
export function joinBlock(
  sections: ReadonlyArray<{ text: string; kept: readonly ViewItem[]; omitted: number }>,
  { header, scopes, winners }: { header?: string; scopes: readonly string[]; winners: Record<string, string> },
): MemoryBlock {
  const texts = sections.map((s) => s.text).filter((t) => t !== '');
  const kept = sections.flatMap((s) => s.kept);
  const text = texts.length === 0 ? '' : [...(header === undefined ? [] : [header]), ...texts].join(SEPARATOR);
  return {
    text,
    tokens: estimateTokens(text),
    count: kept.length,
    omitted: sections.reduce((sum, s) => sum + s.omitted, 0),
    scopes: [...new Set(scopes)].sort(),
    seen: {
      hashes: [...new Set(kept.map((item) => item.hash))].sort(),
      titles: [...new Set(kept.flatMap((item) => (item.titleHash === undefined ? [] : [item.titleHash])))].sort(),
      winners,
    },
  };
}
