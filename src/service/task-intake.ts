import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { StartTaskRequest } from '../api/schemas.ts';
import { AgencyError } from '../core/errors.ts';
import { writeFileAtomicInScope } from '../tools/guards/path-io.ts';

/** What a service accepts from clients, in bytes and files. */
export type IntakeLimits = {
  /** The largest file uploaded or sent inline. @default 10485760 (10 MiB) */
  fileBytes: number;
  /** The most files a task's `task/` may receive. @default 100 */
  files: number;
};

/** The defaults of {@link IntakeLimits}. */
export const DEFAULT_INTAKE_LIMITS: Readonly<IntakeLimits> = Object.freeze({ fileBytes: 10 * 1024 * 1024, files: 100 });

/** Names a client may not upload: the brief comes with the request. */
const RESERVED = new Set(['brief.md']);

/** A file for `task/`, decoded. */
export type IncomingFile = { name: string; data: Uint8Array };

/**
 * Checks a file name a client sent: one path segment of letters, digits, `.`, `-` and `_`, not starting with a dot,
 * and not a name the service writes itself. The path guard checks it again when the file is written.
 */
export function checkUploadName(name: string, field: string): void {
  if (!/^[A-Za-z0-9_][A-Za-z0-9._-]{0,254}$/.test(name) || name.includes('..')) {
    throw new AgencyError(
      'invalid_argument',
      `${field}: "${name.slice(0, 80)}" is not a valid file name. Use one name without a directory: letters, digits, ".", "-" and "_", not starting with "."`,
      { details: { field } },
    );
  }
  if (RESERVED.has(name)) {
    throw new AgencyError('invalid_argument', `${field}: "${name}" is set by the task's brief; upload other files`, {
      details: { field },
    });
  }
}

/** Decodes the inline files of a request, checking names, encodings and sizes. */
export function inlineFiles(request: StartTaskRequest, limits: IntakeLimits): IncomingFile[] {
  const files = request.files ?? [];
  if (files.length > limits.files)
    throw new AgencyError('invalid_argument', `files: at most ${limits.files} files per task`, {
      details: { field: 'files' },
    });
  const seen = new Set<string>();
  return files.map((file, index) => {
    const field = `files.${index}.name`;
    checkUploadName(file.name, field);
    if (seen.has(file.name))
      throw new AgencyError('invalid_argument', `${field}: "${file.name}" is sent twice`, { details: { field } });
    seen.add(file.name);
    const data =
      file.encoding === 'base64' ? decodeBase64(file.content, `files.${index}.content`) : Buffer.from(file.content);
    if (data.byteLength > limits.fileBytes)
      throw new AgencyError(
        'payload_too_large',
        `files.${index}: ${data.byteLength} bytes is over the ${limits.fileBytes}-byte limit per file`,
        { details: { field: `files.${index}.content`, limit: limits.fileBytes } },
      );
    return { name: file.name, data };
  });
}

function decodeBase64(text: string, field: string): Buffer {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text) || text.length % 4 !== 0)
    throw new AgencyError('invalid_argument', `${field}: not valid base64`, { details: { field } });
  return Buffer.from(text, 'base64');
}

/** Creates a task folder: `task/brief.md` and the given files, each written through the path guard. */
export async function createTaskFolder(root: string, brief: string, files: readonly IncomingFile[]): Promise<void> {
  await mkdir(join(root, 'task'), { recursive: true });
  await mkdir(join(root, 'progress'), { recursive: true });
  await writeTaskFile(root, 'brief.md', Buffer.from(brief.endsWith('\n') ? brief : `${brief}\n`), Infinity);
  for (const file of files) await writeTaskFile(root, file.name, file.data, Infinity);
}

/** Writes one file under `task/` through the path guard: no link is followed and the name cannot leave `task/`. */
export async function writeTaskFile(root: string, name: string, data: Uint8Array, maxBytes: number): Promise<number> {
  try {
    await writeFileAtomicInScope([join(root, 'task')], name, data, {
      maxBytes: Number.isFinite(maxBytes) ? maxBytes : Math.max(1, data.byteLength),
    });
  } catch (error) {
    if (AgencyError.isInstance(error) && error.code.startsWith('path_'))
      throw new AgencyError('invalid_argument', `file "${name}": ${error.message}`, { details: { field: 'name' } });
    throw error;
  }
  return data.byteLength;
}
