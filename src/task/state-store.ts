import path from 'node:path';
import { errnoCode } from '../core/errno.ts';
import { AgencyError } from '../core/errors.ts';
import { type StateFile, stateSchema } from './contracts/state.ts';
import { writeFileAtomic } from './fs/atomic-write.ts';
import { confineFs } from './fs/confined-fs.ts';
import { type DurableFs, fileError, nodeDurableFs } from './fs/durable-fs.ts';

/**
 * Where a run keeps its `agent.state.v1` record: a checkpoint of the journal's fold, which resume trusts over it.
 */
export type StateStore = {
  /** The stored state, or `undefined` if none was written yet. @throws AgencyError `state_corrupt` */
  read(): Promise<StateFile | undefined>;
  /**
   * Replaces the stored state atomically. The state is checked and copied before the first `await`, so the caller
   * may change its object at once. @throws AgencyError `invalid_argument` for a state that fails the schema
   */
  write(state: StateFile): Promise<void>;
};

/** Options for {@link createFileStateStore}. */
export type FileStateStoreOptions = {
  /** The file system. @default nodeDurableFs, confined to `progressDir` (see confineFs) */
  fs?: DurableFs;
};

const RESTORE_HINT = 'the journal holds the run: `agency resume` rebuilds it from there';

/**
 * Keeps the state in `<progressDir>/state.json`, replaced atomically (temp file, rename) so a reader or a crash sees
 * the old or the new state, never a mix. It is not fsynced: after a power loss it may be behind the journal, and
 * resume rebuilds it from the journal's fold. Writes and reads are validated against `agent.state.v1`.
 *
 * @example
 * const store = createFileStateStore('/runs/t1/progress'); await store.write(state); await store.read();
 */
export function createFileStateStore(
  progressDir: string,
  { fs = confineFs(nodeDurableFs, progressDir) }: FileStateStoreOptions = {},
): StateStore {
  const file = path.join(progressDir, 'state.json');
  return {
    async read() {
      let bytes: Buffer;
      try {
        bytes = await fs.readFile(file);
      } catch (cause) {
        if (errnoCode(cause) === 'ENOENT') return undefined;
        throw fileError('internal', file, 'read', cause);
      }
      return parseState(bytes.toString('utf8'), file);
    },
    async write(state) {
      const text = `${JSON.stringify(checkState(state, file), null, 2)}\n`;
      await writeFileAtomic(file, text, { fs, durable: false });
    },
  };
}

/**
 * A {@link StateStore} in memory, for tests. It validates like the file store and stores copies, so later changes
 * to a written object do not leak into what `read` returns.
 */
export function createMemoryStateStore(initial?: StateFile): StateStore {
  let stored = initial === undefined ? undefined : checkState(initial, 'memory state');
  return {
    async read() {
      return stored === undefined ? undefined : structuredClone(stored);
    },
    async write(state) {
      stored = checkState(structuredClone(state), 'memory state');
    },
  };
}

/** Parses and validates the text of a state file. @throws AgencyError `state_corrupt` naming the file and field */
export function parseState(text: string, file: string): StateFile {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (cause) {
    throw new AgencyError('state_corrupt', `${file}: not valid JSON (${(cause as Error).message}); ${RESTORE_HINT}`, {
      cause,
      details: { path: file },
    });
  }
  const result = stateSchema.safeParse(value);
  if (result.success) return result.data;
  const { field, message } = firstIssue(result.error);
  throw new AgencyError('state_corrupt', `${file}: ${field} ${message}; ${RESTORE_HINT}`, {
    cause: result.error,
    details: { path: file, field },
  });
}

function checkState(state: StateFile, file: string): StateFile {
  const result = stateSchema.safeParse(state);
  if (result.success) return result.data;
  const { field, message } = firstIssue(result.error);
  throw new AgencyError('invalid_argument', `${file}: refusing to write a state whose ${field} ${message}`, {
    cause: result.error,
    details: { path: file, field },
  });
}

function firstIssue(error: { issues: readonly { path: PropertyKey[]; message: string }[] }): {
  field: string;
  message: string;
} {
  const issue = error.issues[0];
  const field = issue?.path.length ? `"${issue.path.map(String).join('.')}"` : 'the state';
  return { field, message: `is invalid: ${issue?.message ?? 'unknown problem'}` };
}
