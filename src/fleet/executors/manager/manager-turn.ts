import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { readJournal } from '../../../task/journal/read-journal.ts';
import { taskPaths } from '../../../task/layout.ts';
import { prepareTurnRoot, type TurnRoot } from '../builtin/builtin-task-root.ts';
import { cancelRequestFile } from './cancel-request.ts';

/** The task root a manager's run works in: a new turn of its session, or (`resumed`) one a crash left unfinished. */
export type ManagerTurn = TurnRoot & { resumed: boolean };

/**
 * The turn to run for a prompt in a manager's session directory. A turn whose journal has frames but no `finish`
 * was cut off (the manager was killed): it is resumed from its journal (its stale run lock taken over) rather than
 * begun again, so the delegations
 * it made are not made twice; the new prompt is not used then. Otherwise the prompt starts the next turn, as the
 * built-in executor's (see {@link prepareTurnRoot}).
 */
export async function managerTurn(workdir: string, prompt: string): Promise<ManagerTurn> {
  const last = await lastTurn(workdir);
  if (last !== undefined) {
    const root = join(workdir, `turn-${last}`);
    const journal = await readJournal(join(root, 'progress', 'events.ndjson')).catch(() => undefined);
    const frames = journal?.frames ?? [];
    if (frames.length > 0 && !frames.some((frame) => frame.type === 'finish')) {
      // The cut-off run's lock names a pid of its sandbox's own PID namespace, which says nothing out here. That run
      // died with the worker that ran it (its sandbox dies with its parent), and this worker runs one prompt of a
      // session at a time: the lock is stale, so it is taken over.
      await rm(taskPaths(root).lock, { force: true });
      // A cancel asked of that run is over with it.
      await rm(cancelRequestFile(root), { force: true });
      return { root, turn: last, resumed: true };
    }
  }
  return { ...(await prepareTurnRoot(workdir, prompt)), resumed: false };
}

async function lastTurn(workdir: string): Promise<number | undefined> {
  const names = await readdir(workdir).catch(() => [] as string[]);
  const turns = names.flatMap((name) => {
    const n = /^turn-(\d+)$/.exec(name)?.[1];
    return n === undefined ? [] : [Number(n)];
  });
  return turns.length === 0 ? undefined : Math.max(...turns);
}
