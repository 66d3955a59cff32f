import { readFile as fsReadFile } from 'node:fs/promises';
import { join } from 'node:path';
import { errnoCode } from '../core/errno.ts';
import { AgencyError } from '../core/errors.ts';
import type { Message } from '../core/messages.ts';
import { HISTORY_FILES, parseHistoryJsonl, parseHistoryMarkdown } from '../memory/history.ts';

/** How {@link loadTaskHistory} reads a file: its text, or null when it does not exist. */
export type ReadTextFile = (path: string) => Promise<string | null>;

/**
 * Reads and parses the seeded history of a task folder: `task/history.jsonl` or `task/history.md` (not both).
 * Returns `[]` when neither exists. Pass `readFile` to read through a path guard.
 *
 * @throws AgencyError `history_invalid` for a malformed file, or when both files exist.
 */
export async function loadTaskHistory(
  root: string,
  { readFile = readTextFile }: { readFile?: ReadTextFile } = {},
): Promise<Message[]> {
  const [jsonl, md] = await Promise.all([
    readFile(join(root, HISTORY_FILES.jsonl)),
    readFile(join(root, HISTORY_FILES.md)),
  ]);
  if (jsonl !== null && md !== null) {
    throw new AgencyError(
      'history_invalid',
      `${HISTORY_FILES.jsonl} and ${HISTORY_FILES.md} both exist: keep one of them`,
      { details: { files: [HISTORY_FILES.jsonl, HISTORY_FILES.md] } },
    );
  }
  if (jsonl !== null) return parseHistoryJsonl(jsonl);
  if (md !== null) return parseHistoryMarkdown(md);
  return [];
}

async function readTextFile(path: string): Promise<string | null> {
  try {
    return await fsReadFile(path, 'utf8');
  } catch (cause) {
    if (errnoCode(cause) === 'ENOENT') return null;
    throw cause;
  }
}
