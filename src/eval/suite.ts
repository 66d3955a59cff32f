import { lstat, readdir, realpath, stat } from 'node:fs/promises';
import { join, sep } from 'node:path';
import { AgencyError } from '../core/errors.ts';
import { EXPECT_FILE, type Expectation, readExpectation } from './expect.ts';

/** The name of a case's recorded model calls. */
export const CASSETTE_FILE = 'cassette.jsonl';

/** One case of an eval suite: a task root (`task/`), its expected outcome, and its cassette if recorded. */
export type EvalCase = {
  /** The case's folder name, unique in the suite. */
  name: string;
  /** The case's folder. */
  dir: string;
  expect: Expectation;
  /** `<dir>/cassette.jsonl`, whether or not it exists yet (a recording writes it). */
  cassette: string;
  hasCassette: boolean;
};

/** A checked eval suite: every sub-folder (not starting with a dot) is a case, in name order. */
export type EvalSuite = { dir: string; cases: EvalCase[] };

/**
 * Reads an eval suite and checks every case before anything runs: each has `task/brief.md` and `expect.yaml` (valid,
 * no unknown fields), and no link under it leads outside the suite.
 *
 * @throws AgencyError `invalid_config` naming the folder, file and field, or the link that leads out of the suite.
 */
export async function loadSuite(dir: string): Promise<EvalSuite> {
  const root = await realpath(dir).catch((cause: unknown) => {
    throw new AgencyError('invalid_config', `eval suite ${dir} does not exist`, { cause, details: { file: dir } });
  });
  if (!(await stat(root)).isDirectory()) throw new AgencyError('invalid_config', `eval suite ${dir} is not a folder`);
  const entries = (await readdir(root, { withFileTypes: true }))
    .filter((entry) => !entry.name.startsWith('.') && (entry.isDirectory() || entry.isSymbolicLink()))
    .map((entry) => entry.name)
    .sort();
  if (entries.length === 0)
    throw new AgencyError('invalid_config', `eval suite ${dir} has no cases: each case is a folder with task/`);
  const cases: EvalCase[] = [];
  for (const name of entries) cases.push(await loadCase(root, name));
  return { dir: root, cases };
}

async function loadCase(root: string, name: string): Promise<EvalCase> {
  const dir = join(root, name);
  await checkLinks(root, dir);
  const brief = join(dir, 'task', 'brief.md');
  if (!(await stat(brief).catch(() => undefined))?.isFile())
    throw new AgencyError('invalid_config', `${dir}: case "${name}" has no task/brief.md; a case folder holds a task/`);
  const expect = await readExpectation(join(dir, EXPECT_FILE));
  const cassette = join(dir, CASSETTE_FILE);
  const hasCassette = (await stat(cassette).catch(() => undefined))?.isFile() === true;
  return { name, dir, expect, cassette, hasCassette };
}

// A case is copied before it runs, following links, so a link under it would bring whatever it points at into the
// run: every link must be to a file of the suite. A link to a folder is refused too: links between folders can make
// a loop, which the copy would follow without end.
async function checkLinks(root: string, path: string): Promise<void> {
  const info = await lstat(path);
  if (info.isSymbolicLink()) {
    const target = await realpath(path).catch(() => undefined);
    if (target === undefined || !target.startsWith(root + sep))
      throw new AgencyError(
        'invalid_config',
        `${path} is a link that leads outside the eval suite ${root}; a suite may link only to its own files`,
        { details: { path } },
      );
    if ((await stat(target)).isDirectory())
      throw new AgencyError(
        'invalid_config',
        `${path} is a link to a folder; a case may link only to files (copy the folder, or link its files)`,
        { details: { path } },
      );
    return;
  }
  if (!info.isDirectory()) return;
  for (const entry of await readdir(path)) await checkLinks(root, join(path, entry));
}
