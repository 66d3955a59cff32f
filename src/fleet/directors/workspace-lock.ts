// Workspace locks: never two tasks on one workdir at once, whichever director started them. One file per workdir
// under the data root, `locks/<sha256 of its real path>.lock`, naming its holder (director, pid and the process's
// start time) and, once dispatched, the task it runs.
import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { mkdir, open, realpath, stat, unlink } from 'node:fs/promises';
import { hostname } from 'node:os';
import { isAbsolute, join } from 'node:path';
import { z } from 'zod';
import { errnoCode } from '../../core/errno.ts';
import { AgencyError } from '../../core/errors.ts';
import { sha256Hex } from '../../core/sha256.ts';
import { createWhole, removeStale } from '../../core/whole-file.ts';
import { writeFileAtomic } from '../../task/fs/atomic-write.ts';
import { isAlive, processStartedAt } from '../../task/lock.ts';
import { dispatchedTaskSchema } from '../api/director-schemas.ts';
import type { WorkspaceLock, WorkspaceLocks } from './director.ts';
import type { DispatchedTask } from './task-dispatch.ts';

// How far a process's start time, read again from /proc, may be from the one recorded (the kernel's boot time moves
// by a second as the clock is adjusted); a pid reused within that time of the first start is not a concern.
const START_SLACK_MS = 2_000;

const lockFileSchema = z
  .object({
    version: z.literal(1),
    workdir: z.string(),
    director: z.string(),
    purpose: z.string(),
    host: z.string(),
    pid: z.number().int().positive(),
    /** When the holder process started (ms since the epoch), when the system tells. */
    process_started_at: z.number().nullable(),
    acquired_at: z.iso.datetime(),
    /** Unique to one acquisition: a takeover checks it moved the file it judged stale. */
    nonce: z.string(),
    task: dispatchedTaskSchema.nullable(),
  })
  .strict();

type LockFile = z.infer<typeof lockFileSchema>;

/** Options of {@link createWorkspaceLocks}. */
export type WorkspaceLocksOptions = {
  /** `AGENCY_ROOT/locks`. */
  dir: string;
  /** The director taking locks, named in them. */
  director: string;
  /**
   * Whether a task recorded in a lock whose holder died still runs (queued, working or cancelling on its worker):
   * then the lock is not stale. A worker that does not answer counts as not running it.
   */
  taskRunning(task: DispatchedTask): Promise<boolean>;
  /** @default process.pid */
  pid?: number;
  now?: () => number;
};

/** The lock file of `workdir` (a real path) under `dir`. */
export function lockFileOf(dir: string, workdir: string): string {
  return join(dir, `${sha256Hex(workdir).slice(0, 32)}.lock`);
}

/**
 * Workspace locks held by one director process. A lock is created whole and at once (written to a temp file, then
 * hard-linked to its name, which fails if the name exists), so a reader never sees half a lock. A lock whose holder
 * process is gone (pid not alive, or alive with another start time: a reused pid) and whose recorded task does not
 * run any more is stale and is taken over: renamed aside, checked to be the very file judged stale, removed.
 */
export function createWorkspaceLocks({
  dir,
  director,
  taskRunning,
  pid = process.pid,
  now = Date.now,
}: WorkspaceLocksOptions): WorkspaceLocks {
  const started = processStartedAt(pid);
  return {
    async acquire(workdir, { purpose, resume }) {
      const real = await realDirectory(workdir);
      await mkdir(dir, { recursive: true, mode: 0o700 });
      const file = lockFileOf(dir, real);
      const mine: LockFile = {
        version: 1,
        workdir: real,
        director,
        purpose,
        host: hostname(),
        pid,
        process_started_at: (await started) ?? null,
        acquired_at: new Date(now()).toISOString(),
        nonce: randomBytes(12).toString('hex'),
        task: resume ?? null,
      };
      await take(file, mine, { taskRunning, director, resume });
      return held(file, mine);
    },
  };
}

function held(file: string, mine: LockFile): WorkspaceLock {
  return {
    workdir: mine.workdir,
    async attach(task) {
      mine.task = task;
      if ((await readHolder(file))?.nonce !== mine.nonce)
        throw new AgencyError('workspace_locked', `${file}: this director no longer holds the lock of ${mine.workdir}`);
      await writeFileAtomic(file, `${JSON.stringify(mine)}\n`, { mode: 0o600, durable: false });
    },
    async release() {
      if ((await readHolder(file))?.nonce === mine.nonce) await unlink(file).catch(() => undefined);
    },
  };
}

async function take(
  file: string,
  mine: LockFile,
  context: Pick<WorkspaceLocksOptions, 'taskRunning' | 'director'> & { resume: DispatchedTask | undefined },
): Promise<void> {
  const text = `${JSON.stringify(mine)}\n`;
  for (let attempt = 0; attempt < 8; attempt++) {
    if (await createWhole(file, text, 0o600)) return;
    const holder = await readHolder(file);
    if (holder === undefined) continue;
    const why = await heldBecause(holder, context);
    if (why !== undefined) throw locked(file, holder, why);
    await removeStale(file, async (moved) => (await readHolder(moved))?.nonce === holder.nonce);
  }
  throw new AgencyError('workspace_locked', `${file}: others keep taking the lock of ${mine.workdir}; try again`);
}

// Why the holder still holds the lock, or undefined when the lock is stale.
async function heldBecause(
  holder: LockFile,
  {
    taskRunning,
    director,
    resume,
  }: Pick<WorkspaceLocksOptions, 'taskRunning' | 'director'> & {
    resume: DispatchedTask | undefined;
  },
): Promise<string | undefined> {
  if (holder.host !== hostname())
    return `it was taken on host ${holder.host}; if that director is gone, delete the lock file`;
  if (await processLives(holder)) return 'its director is running';
  const task = holder.task;
  if (!task) return undefined;
  // The director taking its own lock back after a restart, for the task it resumes.
  if (holder.director === director && resume?.task_id === task.task_id) return undefined;
  if (await taskRunning(task))
    return `its director is gone but its task ${task.task_id} still runs on ${task.worker.url}`;
  return undefined;
}

async function processLives(holder: LockFile): Promise<boolean> {
  if (!isAlive(holder.pid)) return false;
  if (holder.process_started_at === null) return true;
  const started = await processStartedAt(holder.pid);
  return started === undefined || Math.abs(started - holder.process_started_at) <= START_SLACK_MS;
}

/** The holder a lock file names; undefined when there is none. */
async function readHolder(file: string): Promise<LockFile | undefined> {
  let text: string;
  try {
    // O_NOFOLLOW: a lock replaced by a link is never read through.
    const handle = await open(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    text = await handle.readFile('utf8').finally(() => handle.close());
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return undefined;
    throw unreadable(file, String(errnoCode(error) ?? error));
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw unreadable(file, 'not JSON');
  }
  const parsed = lockFileSchema.safeParse(json);
  if (!parsed.success) throw unreadable(file, `"${parsed.error.issues[0]?.path.join('.')}" is not what a lock holds`);
  return parsed.data;
}

// Locks are written whole, so one that does not parse was changed by hand: say so rather than take it over.
function unreadable(file: string, problem: string): AgencyError {
  return new AgencyError(
    'workspace_locked',
    `${file}: the workspace lock cannot be read (${problem}). Delete it once no task works in its workdir.`,
    { details: { lock: file }, retryable: false },
  );
}

function locked(file: string, holder: LockFile, why: string): AgencyError {
  const task = holder.task ? `, task ${holder.task.task_id} on ${holder.task.worker.url}` : '';
  return new AgencyError(
    'workspace_locked',
    `${holder.workdir} is locked by director ${holder.director} (pid ${holder.pid}, ${holder.purpose}, since ` +
      `${holder.acquired_at}${task}): ${why}. Wait for it to finish.`,
    { details: { lock: file, director: holder.director, pid: holder.pid, task: holder.task } },
  );
}

async function realDirectory(workdir: string): Promise<string> {
  if (!isAbsolute(workdir) || workdir.includes('\0'))
    throw new AgencyError('invalid_argument', `workdir "${workdir}" must be an absolute path, e.g. /srv/projects/app`, {
      details: { field: 'workdir' },
    });
  try {
    const real = await realpath(workdir);
    if ((await stat(real)).isDirectory()) return real;
  } catch {
    // Reported below.
  }
  throw new AgencyError('invalid_argument', `workdir ${workdir} is not an existing directory; create it first`, {
    details: { field: 'workdir' },
  });
}

/** The lock files' content, for tests and `agency` diagnostics: who holds `workdir`, if anyone. */
export async function workspaceLockHolder(
  dir: string,
  workdir: string,
): Promise<Pick<LockFile, 'director' | 'pid' | 'task' | 'purpose'> | undefined> {
  const holder = await readHolder(lockFileOf(dir, await realDirectory(workdir)));
  if (!holder) return undefined;
  const { director, pid, task, purpose } = holder;
  return { director, pid, task, purpose };
}
