import { cp, lstat, mkdir, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { AgencyError, errorMessage } from '../../../core/errors.ts';
import { readJournal } from '../../../task/journal/read-journal.ts';

/** A governed run's task root for one prompt of a session: `<session dir>/turn-<n>/`. */
export type TurnRoot = { root: string; turn: number };

// The answers of earlier turns quoted in the next brief, each cut to this many characters.
const QUOTED_OUTPUT_CHARS = 2_000;

/**
 * Makes the task root for the session's next prompt. A finished governed run cannot take another prompt, so each
 * prompt is a run of its own in `turn-<n>/`, beside the earlier ones: its `task/brief.md` is the prompt, followed,
 * on a continued session, by the earlier turns' answers (from their journals' `finish` frames), and the previous
 * turn's deliverables are copied into `task/earlier/turn-<n-1>/` where the run can read them. Each earlier turn is
 * read from its latest root (see {@link resumeTurnRoot}).
 */
export async function prepareTurnRoot(workdir: string, prompt: string): Promise<TurnRoot> {
  const earlier = await turnRoots(workdir);
  const turn = (earlier.at(-1)?.turn ?? 0) + 1;
  const root = join(workdir, `turn-${turn}`);
  await mkdir(join(root, 'task'), { recursive: true });
  const quoted = await Promise.all(
    earlier.map(async (each) => `### Turn ${each.turn}\n\n${await answerOf(each.root)}\n`),
  );
  const context = quoted.length === 0 ? '' : `\n\n## Earlier in this session\n\n${quoted.join('\n')}`;
  await writeFile(join(root, 'task', 'brief.md'), `${prompt.trimEnd()}${context}\n`);
  const previous = earlier.at(-1);
  if (previous !== undefined) await copyDeliverables(previous, join(root, 'task', 'earlier'));
  return { root, turn };
}

/**
 * Whether the session's last turn is a governed run that was started and did not finish (its journal has frames and
 * no `finish`): a run lost with its worker, which {@link resumeTurnRoot} continues.
 *
 * @throws AgencyError `internal` when a turn root in the session directory is not a plain directory.
 */
export async function hasUnfinishedTurn(workdir: string): Promise<boolean> {
  const last = (await turnRoots(workdir)).at(-1);
  if (!last) return false;
  const journal = await readJournal(join(last.root, 'progress', 'events.ndjson')).catch(() => undefined);
  return journal !== undefined && journal.frames.length > 0 && !journal.frames.some((frame) => frame.type === 'finish');
}

/**
 * The root in which the take `epoch` of a task resumes the session's last turn: a copy of that turn's latest root
 * (`turn-<n>/` or an earlier take's `turn-<n>.e<k>/`) made in a new `turn-<n>.e<epoch>/`, regular files and
 * directories only, without the run lock. A worker lost while its run went on (paused, cut off) only ever writes in
 * its own root, which no reader uses once a later take's exists: the files are fenced as the database rows are.
 *
 * @throws AgencyError `internal` when the session has no turn, a turn root is not a plain directory, or the new root
 * exists already.
 */
export async function resumeTurnRoot(workdir: string, epoch: number): Promise<TurnRoot> {
  const last = (await turnRoots(workdir)).at(-1);
  if (!last) throw new AgencyError('internal', `${workdir} holds no turn to resume`, { details: { path: workdir } });
  const root = join(workdir, `turn-${last.turn}.e${epoch}`);
  try {
    await mkdir(root);
  } catch (error) {
    throw new AgencyError('internal', `${root} could not be made for take ${epoch}: ${errorMessage(error)}`, {
      details: { path: root },
      cause: error,
    });
  }
  await copyPlain(last.root, root, (source) => source !== join(last.root, 'progress', '.lock'));
  return { root, turn: last.turn };
}

/** A turn of the session and its latest root. */
type TurnEntry = { turn: number; root: string };

// Each turn's latest root: `turn-<n>/` is take 0 (or 1), `turn-<n>.e<k>/` the copy take k resumed in.
async function turnRoots(workdir: string): Promise<TurnEntry[]> {
  const entries = await readdir(workdir, { withFileTypes: true }).catch(() => []);
  const latest = new Map<number, { epoch: number; name: string }>();
  for (const entry of entries) {
    const match = /^turn-(\d+)(?:\.e(\d+))?$/.exec(entry.name);
    if (!match) continue;
    if (!entry.isDirectory())
      throw new AgencyError(
        'internal',
        `${join(workdir, entry.name)} is not a directory (a link or a file was put in its place); the session's ` +
          'files cannot be trusted: end the task, or remove it',
        { details: { path: join(workdir, entry.name) } },
      );
    const turn = Number(match[1]);
    const epoch = Number(match[2] ?? 0);
    if (epoch >= (latest.get(turn)?.epoch ?? -1)) latest.set(turn, { epoch, name: entry.name });
  }
  return [...latest.entries()]
    .sort(([a], [b]) => a - b)
    .map(([turn, { name }]) => ({ turn, root: join(workdir, name) }));
}

async function answerOf(root: string): Promise<string> {
  const journal = await readJournal(join(root, 'progress', 'events.ndjson')).catch(() => undefined);
  const finish = journal?.frames.findLast((frame) => frame.type === 'finish');
  const output = finish?.data?.['output'];
  if (typeof output !== 'string') return '(no answer: the run did not finish)';
  const reason = String(finish?.data?.['reason'] ?? 'unknown');
  const text = output.length > QUOTED_OUTPUT_CHARS ? `${output.slice(0, QUOTED_OUTPUT_CHARS)}…` : output;
  return reason === 'completed' ? text : `(finished with ${reason}) ${text}`;
}

async function copyDeliverables(previous: TurnEntry, into: string): Promise<void> {
  const artifacts = join(previous.root, 'progress', 'artifacts');
  if (!(await lstat(artifacts).catch(() => undefined))?.isDirectory()) return;
  await copyPlain(artifacts, join(into, `turn-${previous.turn}`));
}

// Only regular files and directories: the runner never follows a link in its task folder, and neither does this.
async function copyPlain(from: string, to: string, keep: (source: string) => boolean = () => true): Promise<void> {
  await cp(from, to, {
    recursive: true,
    filter: async (source) => {
      const stat = await lstat(source);
      return (stat.isDirectory() || stat.isFile()) && keep(source);
    },
  });
}
