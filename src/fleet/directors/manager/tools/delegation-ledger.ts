import { mkdir, readdir } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { z } from 'zod';
import { errnoCode } from '../../../../core/errno.ts';
import { AgencyError } from '../../../../core/errors.ts';
import { sha256Hex } from '../../../../core/sha256.ts';
import { readFileInScope, writeFileAtomicInScope } from '../../../../tools/guards/path-io.ts';
import type { PathRoot } from '../../../../tools/guards/path-roots.ts';
import { sessionIdSchema, workerTaskIdSchema } from '../../../api/worker-schemas.ts';

/** Where a delegation is: announced before the worker is asked (`sending`), then what the worker answered (`sent`). */
export const delegationSchema = z
  .object({
    version: z.literal(1),
    /** The delegation's key: the digest of the run's root and the model's tool-call id. */
    key: z.string().regex(/^[0-9a-f]{64}$/),
    state: z.enum(['sending', 'sent']),
    /** The session: chosen by the manager for a new one, so a lost answer can be found on the worker. */
    session_id: sessionIdSchema,
    /** How the task went out: a new session, the next turn of an idle one, or a finished one carried on. */
    how: z.enum(['started', 'continued', 'resumed']),
    /** The worker, once known (from the start when one was named or the session's task is continued). */
    worker: z.object({ name: z.string(), url: z.string() }).strict().nullable(),
    task_id: workerTaskIdSchema.nullable(),
    /** A continued task's turns before this one, so a lost answer shows in its turn count. */
    turns_before: z.int().nonnegative().nullable(),
    workdir: z.string().nullable(),
    prompt_sha256: z.string().regex(/^[0-9a-f]{64}$/),
    at: z.iso.datetime(),
  })
  .strict();

/** One delegation as the manager's task root keeps it (`progress/delegations/<key>.json`). */
export type Delegation = z.infer<typeof delegationSchema>;

/** The delegations of a manager's run, and of the earlier turns of its session. */
export type DelegationLedger = {
  /** The key of a tool call of this run. */
  keyOf(toolCallId: string): string;
  get(key: string): Promise<Delegation | undefined>;
  /** Writes a delegation durably (before the worker is asked, and once it answered). */
  put(delegation: Delegation): Promise<void>;
  /** Every delegation of this run and of the session's earlier turns, oldest first. */
  all(): Promise<Delegation[]>;
};

const DIR = 'delegations';
const MAX_BYTES = 64 * 1024;

/**
 * The ledger of the run at `root`: one file per delegation in its `progress/delegations/`, written through the path
 * guard (no link followed) and fsynced. When the root is a turn of a session (`<session dir>/turn-<n>/`), the
 * earlier turns' delegations are read too, so a session carried on keeps its workers and workdirs.
 */
export function createDelegationLedger(root: string): DelegationLedger {
  const progress = join(root, 'progress');
  const scope = (dir: string): PathRoot[] => [{ label: 'progress', path: dir, writable: [DIR] }];
  const readAt = async (dir: string): Promise<Delegation[]> => {
    const names = await readdir(join(dir, DIR)).catch((error: unknown) => {
      if (errnoCode(error) === 'ENOENT') return [] as string[];
      throw error;
    });
    const found: Delegation[] = [];
    for (const name of names.filter((entry) => /^[0-9a-f]{64}\.json$/.test(entry))) {
      const record = await readRecord(scope(dir), `${DIR}/${name}`);
      if (record) found.push(record);
    }
    return found.sort((a, b) => a.at.localeCompare(b.at) || a.key.localeCompare(b.key));
  };
  return {
    keyOf: (toolCallId) => sha256Hex(`${root}\n${toolCallId}`),
    async get(key) {
      return readRecord(scope(progress), `${DIR}/${key}.json`);
    },
    async put(delegation) {
      await mkdir(join(progress, DIR), { recursive: true });
      const text = `${JSON.stringify(delegationSchema.parse(delegation), null, 2)}\n`;
      await writeFileAtomicInScope(scope(progress), `${DIR}/${delegation.key}.json`, text, { maxBytes: MAX_BYTES });
    },
    async all() {
      const earlier = await earlierTurns(root);
      const lists = await Promise.all([...earlier, root].map((turn) => readAt(join(turn, 'progress'))));
      return lists.flat();
    },
  };
}

// A record that is missing reads as none; one that is torn or not a delegation is refused by name, since acting
// without it could send a task twice.
async function readRecord(roots: PathRoot[], path: string): Promise<Delegation | undefined> {
  let bytes: Uint8Array;
  try {
    bytes = await readFileInScope(roots, path, { maxBytes: MAX_BYTES });
  } catch (error) {
    if (AgencyError.hasCode(error, 'path_not_found')) return undefined;
    throw error;
  }
  const parsed = delegationSchema.safeParse(safeJson(Buffer.from(bytes).toString('utf8')));
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new AgencyError(
      'state_corrupt',
      `progress/${path}: "${issue?.path.join('.') ?? ''}" ${issue?.message ?? 'is invalid'}. It records a delegation ` +
        'the manager made; restore it, or delete it if that task was never sent.',
      { details: { file: `progress/${path}` } },
    );
  }
  return parsed.data;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

async function earlierTurns(root: string): Promise<string[]> {
  const turn = /^turn-(\d+)$/.exec(basename(root));
  if (!turn) return [];
  const session = dirname(root);
  const names = await readdir(session).catch(() => [] as string[]);
  return names
    .map((name) => ({ name, n: Number(/^turn-(\d+)$/.exec(name)?.[1] ?? Number.NaN) }))
    .filter(({ n }) => Number.isInteger(n) && n < Number(turn[1]))
    .sort((a, b) => a.n - b.n)
    .map(({ name }) => join(session, name));
}
