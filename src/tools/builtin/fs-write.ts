import { serializeByKey } from '../../core/serialize-by-key.ts';
import { constants } from 'node:fs';
import { z } from 'zod';
import { errnoCode } from '../../core/errno.ts';
import { sha256Hex } from '../../core/sha256.ts';
import { AgencyError } from '../../core/errors.ts';
import { defineTool, type Tool } from '../define-tool.ts';
import { readFileInScope, writeFileAtomicInScope } from '../guards/path-io.ts';
import { openInScope } from '../guards/path-open.ts';
import { resolveInScope } from '../guards/path-resolve.ts';
import type { PathRoot } from '../guards/path-roots.ts';
import { positiveLimit } from './option-checks.ts';
import { displayPath } from './scoped-path.ts';

/** Options for {@link createFsWriteTool}. */
export type FsWriteToolOptions = {
  /** The directories the model may write, decided by the harness (`progress/` for a governed task). */
  roots: readonly PathRoot[];
  /** The largest file a write may leave behind, appends included. @default 10485760 (10 MiB) */
  maxBytes?: number;
  /**
   * Fsync each write (the temp file and its directory) before answering. `taskTools` turns this off: the governed
   * runner makes what tools wrote durable in one batch before it journals their results. @default true
   */
  durable?: boolean;
};

/** How `fs_write` treats an existing file. */
export type FsWriteMode = 'overwrite' | 'append' | 'create';

/** What `fs_write` returns. */
export type FsWriteOutput = {
  /** The path as the model can pass it back, prefixed with its root's label (`progress/notes.md`). */
  path: string;
  mode: FsWriteMode;
  /** Size of the file after the write, in bytes. */
  bytes: number;
  /** sha256 of the whole file after the write, in hex. */
  sha256: string;
};

const input = z.object({
  path: z.string().min(1).describe('File path inside a write root, e.g. "progress/artifacts/report.md"'),
  content: z.string().describe('The text to write (or base64 when encoding is "base64")'),
  mode: z
    .enum(['overwrite', 'append', 'create'])
    .optional()
    .describe('overwrite (default) replaces the file; append adds to its end; create fails if it exists'),
  encoding: z.enum(['utf8', 'base64']).optional().describe('How content is encoded. Default: utf8'),
});

/**
 * `fs_write` (effects `write`, not idempotent): writes a file inside the write roots through the path guard. Every
 * mode replaces the file atomically (temp file, fsync, rename; no fsync with `durable: false`), so readers see the
 * old or the new content, never a mix. `create` claims the name with `O_EXCL` first and fails with `file_exists` if it is taken. Appends from one
 * process are serialized per file. Parent directories must exist.
 *
 * @example
 * const fsWrite = createFsWriteTool({ roots: [{ label: 'progress', path: '/runs/t1/progress' }] });
 */
export function createFsWriteTool({
  roots,
  maxBytes = 10 * 1024 * 1024,
  durable = true,
}: FsWriteToolOptions): Tool<z.output<typeof input>, FsWriteOutput> {
  positiveLimit('fs_write', 'maxBytes', maxBytes);
  const appending = new Map<string, Promise<unknown>>();
  return defineTool({
    name: 'fs_write',
    description:
      'Write a file in the allowed output folder. mode "overwrite" (default) replaces it, "append" adds to its end, ' +
      '"create" fails if the file exists. Parent folders must exist. Returns the path, size and sha256.',
    input,
    effects: 'write',
    execute: async ({ path, content, mode = 'overwrite', encoding = 'utf8' }) => {
      const data = decodeContent(content, encoding);
      checkSize(path, data.byteLength, maxBytes);
      const limits = { maxBytes, durable };
      if (mode === 'create') return { ...(await createExclusive(roots, path, data, limits)), mode };
      if (mode === 'overwrite') {
        const resolved = await writeFileAtomicInScope(roots, path, data, limits);
        return { path: displayPath(resolved), mode, bytes: data.byteLength, sha256: sha256Hex(data) };
      }
      const target = await resolveInScope(roots, path, 'create');
      return { ...(await serializeByKey(appending, target.path, () => append(roots, path, data, limits))), mode };
    },
  });
}

type Limits = { maxBytes: number; durable: boolean };

async function createExclusive(roots: readonly PathRoot[], path: string, data: Uint8Array, limits: Limits) {
  const existing = await resolveInScope(roots, path, 'create');
  if (existing.kind !== 'missing') throw exists(path);
  // O_EXCL claims the name, so two concurrent creates cannot both succeed; the atomic write then fills it.
  const claim = await openInScope(
    roots,
    path,
    'create',
    constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL,
  ).catch((error: unknown) => {
    const errno = AgencyError.isInstance(error) ? errnoCode(error.cause) : undefined;
    throw errno === 'EEXIST' ? exists(path) : error;
  });
  await claim.close();
  const resolved = await writeFileAtomicInScope(roots, path, data, limits);
  return { path: displayPath(resolved), bytes: data.byteLength, sha256: sha256Hex(data) };
}

async function append(roots: readonly PathRoot[], path: string, data: Uint8Array, limits: Limits) {
  const { maxBytes } = limits;
  const target = await resolveInScope(roots, path, 'create');
  const before = target.kind === 'missing' ? Buffer.alloc(0) : await readFileInScope(roots, path, { maxBytes });
  checkSize(path, before.byteLength + data.byteLength, maxBytes);
  const whole = Buffer.concat([before, data]);
  const resolved = await writeFileAtomicInScope(roots, path, whole, limits);
  return { path: displayPath(resolved), bytes: whole.byteLength, sha256: sha256Hex(whole) };
}

function decodeContent(content: string, encoding: 'utf8' | 'base64'): Buffer {
  if (encoding === 'utf8') return Buffer.from(content, 'utf8');
  const compact = content.replace(/\s+/g, '');
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(compact) || compact.length % 4 === 1) {
    throw new AgencyError('invalid_argument', 'content is not valid base64; send the text with encoding "utf8"');
  }
  return Buffer.from(compact, 'base64');
}

function checkSize(path: string, bytes: number, maxBytes: number): void {
  if (bytes <= maxBytes) return;
  throw new AgencyError(
    'limit_exceeded',
    `Writing "${path}" would make it ${bytes} bytes, over the ${maxBytes}-byte limit; write less, or split it into several files`,
    { details: { path, bytes, maxBytes } },
  );
}

function exists(path: string): AgencyError {
  return new AgencyError(
    'file_exists',
    `"${path}" already exists; use mode "overwrite" to replace it, "append" to extend it, or pick another name`,
    { details: { path } },
  );
}
