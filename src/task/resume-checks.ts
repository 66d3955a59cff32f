import { canonicalJson } from '../core/canonical-json.ts';
import { AgencyError } from '../core/errors.ts';
import { type SpecFile, specSchema } from './contracts/spec.ts';
import type { TaskFiles } from './fs/task-files.ts';
import type { JournalFold } from './journal-fold.ts';
import type { TaskPaths } from './layout.ts';
import { parseContractFile, readSpecFile } from './task-spec.ts';

/**
 * The spec a resumed run continues with, and why `spec.json` had to be rewritten from the journal (it was missing,
 * or a power loss left it unreadable), if it had to be.
 */
export type ResumedSpec = { spec: SpecFile; restored?: string };

/**
 * The spec of a run being resumed. The journal's `run.started` frame holds the spec the run started with and is the
 * source of truth: a missing `spec.json`, or one that is not JSON, is rewritten from it, and a `spec.json` that differs from it
 * (an edit made while the run was stopped, by hand or by anything that could write there) is refused, naming the
 * fields.
 *
 * @throws AgencyError `task_folder_invalid` when `spec.json` differs from the journaled spec.
 */
export async function specForResume(
  files: TaskFiles,
  paths: TaskPaths,
  fold: JournalFold,
  redact: <T>(value: T) => T,
): Promise<ResumedSpec> {
  const journaled =
    fold.spec === null
      ? undefined
      : parseContractFile(`${paths.events} (run.started)`, JSON.stringify(fold.spec), specSchema);
  if (journaled === undefined) return { spec: await readSpecFile(files, paths.spec) };
  const restore = async (why: string): Promise<ResumedSpec> => {
    await files.write(paths.spec, `${JSON.stringify(journaled, null, 2)}\n`);
    return { spec: journaled, restored: why };
  };
  const text = await files.readText(paths.spec);
  if (text === undefined) return restore('was missing');
  // Not JSON at all is what a power loss leaves of a file written without fsync; JSON that fails the schema is an
  // edit, which is explained and refused like any other.
  if (!isJson(text)) return restore('was not valid JSON');
  const spec = await readSpecFile(files, paths.spec);
  const changed = differingFields(redact(journaled), redact(spec));
  if (changed.length > 0) {
    throw new AgencyError(
      'task_folder_invalid',
      `${paths.spec} differs from the spec this run started with (journaled in ${paths.events}): ` +
        `${changed.join(', ')} changed. A run keeps its spec; undo the edit, or delete ${paths.spec} and ` +
        '`agency resume` rewrites it from the journal. To run with a different spec, start a new run.',
      { details: { path: paths.spec, fields: changed } },
    );
  }
  return { spec };
}

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** The dotted paths at which two JSON values differ, at most `limit` of them. */
export function differingFields(a: unknown, b: unknown, prefix = '', limit = 8): string[] {
  if (canonicalJson(a ?? null) === canonicalJson(b ?? null)) return [];
  const isObject = (value: unknown): value is Record<string, unknown> =>
    typeof value === 'object' && value !== null && !Array.isArray(value);
  if (!isObject(a) || !isObject(b)) return [prefix === '' ? '(the whole file)' : `"${prefix}"`];
  const found: string[] = [];
  for (const key of [...new Set([...Object.keys(a), ...Object.keys(b)])].sort()) {
    if (found.length >= limit) break;
    found.push(...differingFields(a[key], b[key], prefix === '' ? key : `${prefix}.${key}`, limit - found.length));
  }
  return found;
}
