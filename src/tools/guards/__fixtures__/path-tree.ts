// Builds the real directory tree the path-guard tests attack: two roots, look-alike siblings, canaries outside.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { lstatSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { link, mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

/** One setup step, with paths relative to the tree's top directory. `{top}` in `to` is that directory. */
export type SetupOp =
  | { file: string; text?: string }
  | { dir: string }
  | { symlink: string; to: string }
  | { hardlink: string; to: string }
  | { fifo: string };

/** A built tree: its top directory, the marker every canary contains, and the directories outside the roots. */
export type PathTree = {
  top: string;
  marker: string;
  outsideDirs: readonly string[];
  apply(ops: readonly SetupOp[]): Promise<void>;
  snapshotOutside(): Record<string, string>;
  cleanup(): Promise<void>;
};

/** The directories under `top`, besides the roots, that hold canaries. */
export const OUTSIDE_DIRS = ['outside', 'task-evil', 'taskevil', 'task2', 'progress-evil', 'progress.bak'];

export async function buildPathTree(): Promise<PathTree> {
  const top = await mkdtemp(path.join(os.tmpdir(), 'agency-paths-'));
  const marker = `CANARY-${randomBytes(8).toString('hex')}`;
  for (const dir of ['task', 'progress', ...OUTSIDE_DIRS]) await mkdir(path.join(top, dir));
  for (const dir of OUTSIDE_DIRS) {
    await writeFile(path.join(top, dir, 'canary.txt'), `${marker} ${dir}/canary.txt\n`);
    await writeFile(path.join(top, dir, 'brief.md'), `${marker} ${dir}/brief.md\n`);
  }
  await mkdir(path.join(top, 'outside', 'dir', 'sub'), { recursive: true });
  await writeFile(path.join(top, 'outside', 'dir', 'canary.txt'), `${marker} outside/dir/canary.txt\n`);
  await writeFile(path.join(top, 'outside', 'dir', 'sub', 'canary.txt'), `${marker} outside/dir/sub/canary.txt\n`);
  await writeFile(path.join(top, 'top-canary.txt'), `${marker} top-canary.txt\n`);
  const applied = new Map<string, string>();
  const tree: PathTree = {
    top,
    marker,
    outsideDirs: OUTSIDE_DIRS.map((dir) => path.join(top, dir)),
    apply: async (ops) => {
      for (const op of ops) await applyOnce(top, applied, op);
    },
    snapshotOutside: () => snapshot(top),
    cleanup: () => rm(top, { recursive: true, force: true }),
  };
  return tree;
}

async function applyOnce(top: string, applied: Map<string, string>, op: SetupOp): Promise<void> {
  const key =
    'file' in op
      ? op.file
      : 'dir' in op
        ? op.dir
        : 'symlink' in op
          ? op.symlink
          : 'hardlink' in op
            ? op.hardlink
            : op.fifo;
  const json = JSON.stringify(op);
  const previous = applied.get(key);
  if (previous === json) return;
  if (previous !== undefined) throw new Error(`setup conflict at ${key}: ${previous} vs ${json}`);
  applied.set(key, json);
  const target = path.join(top, key);
  await mkdir(path.dirname(target), { recursive: true });
  if ('file' in op) await writeFile(target, op.text ?? `${key}\n`);
  else if ('dir' in op) await mkdir(target, { recursive: true });
  else if ('symlink' in op) await symlink(op.to.replaceAll('{top}', top), target);
  else if ('hardlink' in op) await link(path.join(top, op.to), target);
  else execFileSync('mkfifo', [target]);
}

/** Every file and directory outside the roots, with file contents and mtimes, to prove nothing there changed. */
function snapshot(top: string): Record<string, string> {
  // Synchronous on purpose: it runs after every corpus case, and sync calls are several times faster here.
  const out: Record<string, string> = {};
  const visit = (rel: string): void => {
    const full = path.join(top, rel);
    const info = lstatSync(full);
    if (info.isSymbolicLink()) {
      out[rel] = `-> ${readlinkSync(full)}`;
    } else if (info.isDirectory()) {
      const names = readdirSync(full).sort();
      out[`${rel}/`] = names.join(',');
      for (const name of names) visit(path.join(rel, name));
    } else {
      out[rel] = `${info.mtimeMs} ${info.size} ${readFileSync(full, 'utf8')}`;
    }
  };
  for (const dir of OUTSIDE_DIRS) visit(dir);
  visit('top-canary.txt');
  out['/'] = readdirSync(top).sort().join(',');
  return out;
}
