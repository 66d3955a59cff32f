import { z } from 'zod';
import { sha256Hex } from '../../core/sha256.ts';
import { AgencyError } from '../../core/errors.ts';
import { defineTool, type Tool } from '../define-tool.ts';
import { readFileInScope } from '../guards/path-io.ts';
import { resolveInScope } from '../guards/path-resolve.ts';
import type { PathRoot } from '../guards/path-roots.ts';
import { positiveLimit } from './option-checks.ts';
import { displayPath } from './scoped-path.ts';
import { binaryOffset, bomCharset, decodeUtf8, decodeWith } from './text-content.ts';

/** Options for {@link createFsReadTool}. */
export type FsReadToolOptions = {
  /** The directories the model may read, decided by the harness. See docs/paths.md for how paths name roots. */
  roots: readonly PathRoot[];
  /** Files larger than this are refused. @default 10485760 (10 MiB) */
  maxFileBytes?: number;
  /** Characters of content returned by one call; the rest is read with `start_line`. @default 100000 */
  maxChars?: number;
};

/** What `fs_read` returns. Line numbers are 1-based and inclusive. */
export type FsReadOutput = {
  /** The path as the model can pass it back, prefixed with its root's label (`task/brief.md`). */
  path: string;
  content: string;
  start_line: number;
  end_line: number;
  total_lines: number;
  /** Size of the whole file in bytes. */
  bytes: number;
  /** sha256 of the whole file, in hex. */
  sha256: string;
  /** True when `maxChars` stopped the read before `end_line` was reached. */
  truncated: boolean;
  /** Where to continue when `truncated`. */
  next_start_line?: number;
  /** Set when the file is not valid UTF-8 and invalid bytes were replaced with U+FFFD. */
  note?: string;
};

const input = z.object({
  path: z.string().min(1).describe('File path inside a read root, e.g. "task/brief.md" or "progress/notes.md"'),
  start_line: z.number().int().min(1).optional().describe('First line to return (1-based). Default: 1'),
  end_line: z.number().int().min(1).optional().describe('Last line to return, inclusive. Default: the last line'),
});

/**
 * `fs_read` (effects `read`, idempotent): reads a text file, or a range of its lines, inside the read roots through
 * the path guard. Binary files (a NUL byte in the first 8 KiB) are refused with `content_not_text`; files over
 * `maxFileBytes` with `invalid_argument`.
 *
 * @example
 * const fsRead = createFsReadTool({ roots: [{ label: 'task', path: '/runs/t1/task' }] });
 */
export function createFsReadTool({
  roots,
  maxFileBytes = 10 * 1024 * 1024,
  maxChars = 100_000,
}: FsReadToolOptions): Tool<z.output<typeof input>, FsReadOutput> {
  positiveLimit('fs_read', 'maxFileBytes', maxFileBytes);
  positiveLimit('fs_read', 'maxChars', maxChars);
  return defineTool({
    name: 'fs_read',
    description:
      'Read a UTF-8 text file, or a range of its lines, from the allowed folders. Long files come back in parts: ' +
      'when "truncated" is true, call again with start_line = next_start_line.',
    input,
    effects: 'read',
    execute: async ({ path, start_line, end_line }) => {
      const resolved = await resolveInScope(roots, path, 'read');
      if (resolved.kind === 'directory') {
        throw new AgencyError('invalid_argument', `"${path}" is a directory; list it with file_glob instead`);
      }
      const bytes = await readFileInScope(roots, path, { maxBytes: maxFileBytes });
      const { text, note } = decodeFile(path, bytes);
      return {
        path: displayPath(resolved),
        ...selectLines(path, text, start_line, end_line, maxChars),
        bytes: bytes.byteLength,
        sha256: sha256Hex(bytes),
        ...(note ? { note } : {}),
      };
    },
  });
}

function decodeFile(path: string, bytes: Uint8Array): { text: string; note?: string } {
  const bom = bomCharset(bytes);
  if (bom && bom !== 'utf-8') return { text: decodeWith(bytes, bom) ?? '' };
  const offset = binaryOffset(bytes);
  if (offset >= 0) {
    throw new AgencyError(
      'content_not_text',
      `"${path}" is a binary file (a NUL byte at offset ${offset}); fs_read returns text files only`,
      { details: { path, offset } },
    );
  }
  const strict = decodeUtf8(bytes);
  if (strict !== undefined) return { text: strict };
  return {
    text: new TextDecoder('utf-8').decode(bytes),
    note: 'The file is not valid UTF-8; invalid bytes are shown as U+FFFD.',
  };
}

type Selection = Pick<FsReadOutput, 'content' | 'start_line' | 'end_line' | 'total_lines' | 'truncated'> & {
  next_start_line?: number;
};

function selectLines(
  path: string,
  text: string,
  start = 1,
  requestedEnd: number | undefined,
  maxChars: number,
): Selection {
  const lines = text.split('\n');
  // A final newline ends the last line; it does not start another one.
  const total = text === '' ? 0 : text.endsWith('\n') ? lines.length - 1 : lines.length;
  if (total === 0) return { content: '', start_line: 1, end_line: 0, total_lines: 0, truncated: false };
  if (start > total) {
    throw new AgencyError('invalid_argument', `start_line ${start} is past the end of "${path}" (${total} lines)`);
  }
  const end = Math.min(requestedEnd ?? total, total);
  if (end < start) {
    throw new AgencyError('invalid_argument', `end_line ${end} is before start_line ${start}; swap them`);
  }
  let content = '';
  let line = start;
  for (; line <= end; line += 1) {
    const piece = (lines[line - 1] ?? '') + (line < lines.length ? '\n' : '');
    if (content.length + piece.length > maxChars) {
      // A single line longer than the limit is cut, so every call makes progress.
      if (content === '') content = piece.slice(0, maxChars);
      else line -= 1;
      const next = line + 1 <= end ? { next_start_line: line + 1 } : {};
      return { content, start_line: start, end_line: line, total_lines: total, truncated: true, ...next };
    }
    content += piece;
  }
  return { content, start_line: start, end_line: end, total_lines: total, truncated: false };
}
