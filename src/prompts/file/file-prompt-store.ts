import { constants } from 'node:fs';
import { link, lstat, mkdir, open, readdir, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { errnoCode } from '../../core/errno.ts';
import { tempFileName } from '../../core/temp-files.ts';
import { type PromptRecords, type PromptStoreDeps, createPromptStore } from '../create-prompt-store.ts';
import { PROMPT_ID } from '../prompt-checks.ts';
import type { PromptAuditEntry, PromptStore, PromptTemplate } from '../prompt-store.ts';
import {
  MAX_PROMPT_FILE_BYTES,
  fileError,
  formatAuditLine,
  formatPromptFile,
  parseAuditLines,
  parsePromptFile,
} from './prompt-file-format.ts';

/** Options for {@link createFilePromptStore}. */
export type FilePromptStoreOptions = PromptStoreDeps & {
  /** The folder: `<id>/<version>.md` per version and `audit.ndjson`. It is created on the first put. */
  dir: string;
};

/** The audit trail's file in the folder. */
export const AUDIT_FILE = 'audit.ndjson';
const VERSION_FILE = /^([1-9][0-9]{0,9})\.md$/;
// Many writers racing for one id each retry with the next version; this many losses in a row is not a race.
const MAX_ATTEMPTS = 1000;
const READ_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW;

/**
 * A `PromptStore` in a folder meant for version control: each version is `<id>/<version>.md` (YAML front matter,
 * then the text), every put is a line of the append-only `audit.ndjson`. A version file is written whole to a temp
 * file and hard-linked to its name, which fails rather than replace a file that exists: a version is never
 * overwritten, and writers in several processes racing for the same version each end up with a version of their
 * own. Symbolic links planted in the folder, oversized files and malformed ones are refused, naming the file.
 *
 * @example
 * const store = createFilePromptStore({ dir: './prompts', after: BUILTIN_PROMPTS });
 * await store.put({ id: 'runner.plan', text: 'Phase: PLAN …\n{{tools}}', createdBy: 'ops' }); // runner.plan@3
 */
export function createFilePromptStore({ dir, ...deps }: FilePromptStoreOptions): PromptStore {
  const records: PromptRecords = {
    read: async (id, version) => {
      if (version !== undefined) return readVersion(dir, id, version);
      const versions = await versionsOf(dir, id);
      const latest = versions.at(-1);
      return latest === undefined ? undefined : readVersion(dir, id, latest);
    },
    list: async (id) => {
      if (id !== undefined) {
        const found = await Promise.all((await versionsOf(dir, id)).map((version) => readVersion(dir, id, version)));
        return found.filter((template): template is PromptTemplate => template !== undefined);
      }
      const latest: PromptTemplate[] = [];
      for (const each of await idsOf(dir)) {
        const template = await records.read(each);
        if (template) latest.push(template);
      }
      return latest;
    },
    append: async (id, next) => {
      for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
        const made = next(await records.read(id));
        if (await writeVersion(dir, made.template)) {
          await appendAudit(dir, made.audit);
          return made.template;
        }
      }
      throw fileError(join(dir, id), 1, `${MAX_ATTEMPTS} puts in a row found their version taken; try again`);
    },
    audit: async (id) => (await readAudit(dir)).filter((entry) => id === undefined || entry.id === id),
  };
  return createPromptStore(records, deps);
}

// The prompt folders, by id; a symbolic link named like one is refused.
async function idsOf(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true }).catch(missingAs([]));
  const ids: string[] = [];
  for (const entry of entries) {
    if (!PROMPT_ID.test(entry.name) || entry.name.length > 64) continue;
    if (entry.isSymbolicLink()) throw planted(join(dir, entry.name));
    if (entry.isDirectory()) ids.push(entry.name);
  }
  return ids.sort();
}

// The versions of an id, ascending, from the names of its files.
async function versionsOf(dir: string, id: string): Promise<number[]> {
  const folder = join(dir, id);
  const stat = await lstat(folder).catch(missingAs(undefined));
  if (!stat) return [];
  if (!stat.isDirectory()) throw planted(folder);
  const versions: number[] = [];
  for (const name of await readdir(folder)) {
    const match = VERSION_FILE.exec(name);
    if (match) versions.push(Number(match[1]));
  }
  return versions.sort((a, b) => a - b);
}

async function readVersion(dir: string, id: string, version: number): Promise<PromptTemplate | undefined> {
  const folder = join(dir, id);
  const stat = await lstat(folder).catch(missingAs(undefined));
  if (!stat) return undefined;
  if (!stat.isDirectory()) throw planted(folder);
  const file = join(folder, `${version}.md`);
  const bytes = await readBounded(file);
  return bytes && parsePromptFile(file, bytes, { id, version });
}

// A regular file's bytes, refusing links and anything over the limit; undefined when there is none.
async function readBounded(file: string): Promise<Buffer | undefined> {
  let handle;
  try {
    handle = await open(file, READ_FLAGS);
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return undefined;
    if (errnoCode(error) === 'ELOOP') throw planted(file);
    throw error;
  }
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) throw planted(file);
    if (stat.size > MAX_PROMPT_FILE_BYTES) {
      throw fileError(file, 1, `${stat.size} bytes is over the ${MAX_PROMPT_FILE_BYTES}-byte limit of a version file`);
    }
    const buffer = Buffer.alloc(stat.size);
    const { bytesRead } = await handle.read(buffer, 0, stat.size, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

// Writes a version whole, then links it to its name: false when that version exists already.
async function writeVersion(dir: string, template: PromptTemplate): Promise<boolean> {
  const folder = join(dir, template.id);
  await mkdir(folder, { recursive: true });
  if (!(await lstat(folder)).isDirectory()) throw planted(folder);
  const target = join(folder, `${template.version}.md`);
  const temp = join(folder, tempFileName(`${template.version}.md`));
  const handle = await open(
    temp,
    constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
    0o644,
  );
  try {
    await handle.writeFile(formatPromptFile(template));
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    await link(temp, target);
  } catch (error) {
    if (errnoCode(error) === 'EEXIST') return false;
    throw error;
  } finally {
    await unlink(temp).catch(() => {});
  }
  await syncDir(folder);
  return true;
}

async function appendAudit(dir: string, entry: PromptAuditEntry): Promise<void> {
  const file = join(dir, AUDIT_FILE);
  let handle;
  try {
    handle = await open(
      file,
      constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW,
      0o644,
    );
  } catch (error) {
    if (errnoCode(error) === 'ELOOP') throw planted(file);
    throw error;
  }
  try {
    await handle.write(formatAuditLine(entry));
    await handle.sync();
  } finally {
    await handle.close();
  }
}

async function readAudit(dir: string): Promise<PromptAuditEntry[]> {
  const file = join(dir, AUDIT_FILE);
  let handle;
  try {
    handle = await open(file, READ_FLAGS);
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return [];
    if (errnoCode(error) === 'ELOOP') throw planted(file);
    throw error;
  }
  try {
    const bytes = await handle.readFile();
    return parseAuditLines(file, bytes.toString('utf8'));
  } finally {
    await handle.close();
  }
}

async function syncDir(folder: string): Promise<void> {
  const handle = await open(folder, constants.O_RDONLY);
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

function planted(path: string) {
  return fileError(
    path,
    1,
    'is a symbolic link or not a regular file/folder; a prompt folder holds only its own files',
  );
}

function missingAs<T>(value: T) {
  return (error: unknown): T => {
    if (errnoCode(error) === 'ENOENT') return value;
    throw error;
  };
}
