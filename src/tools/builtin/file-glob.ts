import { z } from 'zod';
import { defineTool, type Tool } from '../define-tool.ts';
import { globInScope } from '../guards/path-glob.ts';
import type { PathRoot } from '../guards/path-roots.ts';
import { positiveLimit } from './option-checks.ts';

/** Options for {@link createFileGlobTool}. */
export type FileGlobToolOptions = {
  /** The directories the model may list, decided by the harness. */
  roots: readonly PathRoot[];
  /** The most matches one call returns; the model may ask for fewer. @default 500 */
  maxResults?: number;
  /** Directory entries looked at before the walk stops. @default 100000 */
  maxEntries?: number;
};

/** What `file_glob` returns. */
export type FileGlobOutput = {
  /** Matches in sorted walk order, as paths the model can pass to `fs_read`; directories end in `/`. */
  paths: readonly string[];
  /** A limit stopped the walk; narrow the pattern. */
  truncated: boolean;
};

/**
 * `file_glob` (effects `read`, idempotent): lists files inside the read roots that match a glob (`*`, `**`, `?`,
 * `[abc]`, `{a,b}`), through the path guard's descriptor-pinned walk. Patterns may not be absolute or contain `..`,
 * and are refused past the guard's complexity limits (16 wildcards, 8 brace groups, 64 alternatives, 1024 bytes).
 * Matching is linear-time, the walk yields to the event loop, and the call's timeout or cancellation stops it.
 *
 * @example
 * const fileGlob = createFileGlobTool({ roots: ['/runs/t1/task', '/runs/t1/progress'] });
 */
export function createFileGlobTool({
  roots,
  maxResults = 500,
  maxEntries = 100_000,
}: FileGlobToolOptions): Tool<{ pattern: string; max_results?: number | undefined }, FileGlobOutput> {
  positiveLimit('file_glob', 'maxResults', maxResults);
  positiveLimit('file_glob', 'maxEntries', maxEntries);
  return defineTool({
    name: 'file_glob',
    description:
      'List files in the allowed folders that match a glob pattern, e.g. "task/**/*.md" or "progress/artifacts/*". ' +
      'Dotfiles match only patterns that name the dot.',
    input: z.object({
      pattern: z.string().min(1).describe('Glob relative to a root, starting with its name: "task/**/*.csv"'),
      max_results: z.number().int().min(1).max(maxResults).optional().describe(`At most ${maxResults}`),
    }),
    effects: 'read',
    execute: async ({ pattern, max_results = maxResults }, { signal }) => {
      const { paths, truncated } = await globInScope(roots, pattern, { maxResults: max_results, maxEntries, signal });
      return { paths, truncated };
    },
  });
}
