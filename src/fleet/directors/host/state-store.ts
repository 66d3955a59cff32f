// A director's `state.json`: what it must remember across a restart or a kill -9, written whole every time.
import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { errnoCode } from '../../../core/errno.ts';
import { AgencyError } from '../../../core/errors.ts';
import { writeFileAtomic } from '../../../task/fs/atomic-write.ts';
import type { StateStore } from '../director.ts';

/**
 * Opens `file`: the kind's state as last written, or `initial` when there is no file yet. The file wraps the kind's
 * state with the version, type and name of its director, so a state.json copied from another director is refused.
 *
 * @throws AgencyError `state_corrupt` naming the file, what is wrong and how to recover (it is never reset silently).
 */
export async function openStateStore<State>({
  file,
  type,
  name,
  schema,
  initial,
}: {
  file: string;
  type: string;
  name: string;
  schema: z.ZodType<State>;
  initial: () => State;
}): Promise<StateStore<State>> {
  const wrapper = z
    .object({ version: z.literal(1), type: z.literal(type), name: z.literal(name), state: schema })
    .strict();
  let current: State = await read(file, wrapper, initial);
  let queue: Promise<unknown> = Promise.resolve();
  return {
    get: () => current,
    update(change) {
      const next = queue.then(async (): Promise<void> => {
        const state = change(current);
        const text = `${JSON.stringify({ version: 1, type, name, state }, null, 2)}\n`;
        await writeFileAtomic(file, text, { mode: 0o600 });
        current = state;
      });
      queue = next.catch(() => undefined);
      return next.then(() => current);
    },
  };
}

async function read<State>(file: string, wrapper: z.ZodType<{ state: State }>, initial: () => State): Promise<State> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return initial();
    throw corrupt(file, `it cannot be read (${errnoCode(error) ?? String(error)})`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw corrupt(file, 'it is not JSON');
  }
  const parsed = wrapper.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw corrupt(file, `"${issue.path.join('.') || '(the whole file)'}": ${issue.message}`);
  }
  return parsed.data.state;
}

function corrupt(file: string, problem: string): AgencyError {
  return new AgencyError(
    'state_corrupt',
    `${file}: the director's state is malformed: ${problem}. Restore it from a backup, or move it aside to start ` +
      'afresh (work it recorded as in flight is then forgotten: check the workers with `agency fleet`).',
    { details: { file } },
  );
}
