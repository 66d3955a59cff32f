import { cp, lstat, mkdir, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { readJournal } from '../../../task/journal/read-journal.ts';

/** A governed run's task root for one prompt of a session: `<session dir>/turn-<n>/`. */
export type TurnRoot = { root: string; turn: number };

// The answers of earlier turns quoted in the next brief, each cut to this many characters.
const QUOTED_OUTPUT_CHARS = 2_000;

/**
 * Makes the task root for the session's next prompt. A finished governed run cannot take another prompt, so each
 * prompt is a run of its own in `turn-<n>/`, beside the earlier ones: its `task/brief.md` is the prompt, followed,
 * on a continued session, by the earlier turns' answers (from their journals' `finish` frames), and the previous
 * turn's deliverables are copied into `task/earlier/turn-<n-1>/` where the run can read them.
 */
export async function prepareTurnRoot(workdir: string, prompt: string): Promise<TurnRoot> {
  const earlier = await earlierTurns(workdir);
  const turn = (earlier.at(-1) ?? 0) + 1;
  const root = join(workdir, `turn-${turn}`);
  await mkdir(join(root, 'task'), { recursive: true });
  const quoted = await Promise.all(earlier.map(async (n) => `### Turn ${n}\n\n${await answerOf(workdir, n)}\n`));
  const context = quoted.length === 0 ? '' : `\n\n## Earlier in this session\n\n${quoted.join('\n')}`;
  await writeFile(join(root, 'task', 'brief.md'), `${prompt.trimEnd()}${context}\n`);
  const previous = earlier.at(-1);
  if (previous !== undefined) await copyDeliverables(workdir, previous, join(root, 'task', 'earlier'));
  return { root, turn };
}

async function earlierTurns(workdir: string): Promise<number[]> {
  const entries = await readdir(workdir).catch(() => [] as string[]);
  return entries
    .map((name) => /^turn-(\d+)$/.exec(name)?.[1])
    .filter((n): n is string => n !== undefined)
    .map(Number)
    .sort((a, b) => a - b);
}

async function answerOf(workdir: string, turn: number): Promise<string> {
  const journal = await readJournal(join(workdir, `turn-${turn}`, 'progress', 'events.ndjson')).catch(() => undefined);
  const finish = journal?.frames.findLast((frame) => frame.type === 'finish');
  const output = finish?.data?.['output'];
  if (typeof output !== 'string') return '(no answer: the run did not finish)';
  const reason = String(finish?.data?.['reason'] ?? 'unknown');
  const text = output.length > QUOTED_OUTPUT_CHARS ? `${output.slice(0, QUOTED_OUTPUT_CHARS)}…` : output;
  return reason === 'completed' ? text : `(finished with ${reason}) ${text}`;
}

// Only regular files and directories: the runner never follows a link in its task folder, and neither does this.
async function copyDeliverables(workdir: string, turn: number, into: string): Promise<void> {
  const artifacts = join(workdir, `turn-${turn}`, 'progress', 'artifacts');
  if (!(await lstat(artifacts).catch(() => undefined))?.isDirectory()) return;
  await cp(artifacts, join(into, `turn-${turn}`), {
    recursive: true,
    filter: async (source) => {
      const stat = await lstat(source);
      return stat.isDirectory() || stat.isFile();
    },
  });
}
