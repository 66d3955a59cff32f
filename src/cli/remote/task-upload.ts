import { constants } from 'node:fs';
import { lstat, open, readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { UploadFile } from '../../client/index.ts';
import { errnoCode } from '../../core/errno.ts';

/** What `agency run <root> --server` sends: the brief, and the other files of `task/`. */
export type TaskToSend = { brief: string; briefFile: string; files: UploadFile[] };

const usage = (message: string) => Object.assign(new Error(message), { exitCode: 2 });

/**
 * Reads what to send for `<root>`: a task folder (its `task/brief.md`, and every other regular file directly under
 * `task/`), or a brief file alone. `task/` is untrusted input, so a link in it is refused rather than followed: it
 * could send a file of this machine to the server. Hidden files are left out; folders inside `task/` are refused,
 * since the server keeps uploads in `task/` itself.
 */
export async function readTaskToSend(root: string): Promise<TaskToSend> {
  const stats = await lstat(root).catch(() => undefined);
  if (!stats) throw usage(`${root}: no such file or folder`);
  if (stats.isFile()) return { brief: await readFile(root, 'utf8'), briefFile: root, files: [] };
  if (!stats.isDirectory()) throw usage(`${root}: not a task folder or a brief file`);
  const task = join(root, 'task');
  const briefFile = join(task, 'brief.md');
  if (!(await lstat(task).catch(() => undefined))?.isDirectory())
    throw usage(`${root}: not a task folder (no task/ folder; agency init creates one), nor a brief file`);
  const files: UploadFile[] = [];
  for (const entry of (await readdir(task, { withFileTypes: true })).sort((a, b) => a.name.localeCompare(b.name))) {
    if (entry.name === 'brief.md' || entry.name.startsWith('.')) continue;
    const path = join(task, entry.name);
    if (entry.isSymbolicLink())
      throw usage(`${path}: a link; the server takes regular files only (copy the file in instead)`);
    if (entry.isDirectory()) throw usage(`${path}: a folder; the server takes the files directly under task/ only`);
    files.push({ name: entry.name, data: await readRegularFile(path) });
  }
  const brief = await readRegularFile(briefFile).catch((error: unknown) => {
    if (errnoCode(error) !== 'ENOENT') throw error;
    throw usage(`${root}: not a task folder (no task/brief.md; agency init creates one), nor a brief file`);
  });
  return { brief: new TextDecoder().decode(brief), briefFile, files };
}

// Opened without following a link, and checked once open: a link swapped in after the listing is refused too.
async function readRegularFile(path: string): Promise<Uint8Array> {
  const handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW).catch((error: unknown) => {
    if (errnoCode(error) === 'ELOOP')
      throw usage(`${path}: a link; the server takes regular files only (copy the file in instead)`);
    throw error;
  });
  try {
    if (!(await handle.stat()).isFile()) throw usage(`${path}: not a regular file`);
    return new Uint8Array(await handle.readFile());
  } finally {
    await handle.close();
  }
}
