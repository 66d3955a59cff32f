import { mkdir, readdir, readFile, rename, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { isTempFileName } from '../../core/temp-files.ts';
import { errorMessage } from '../../core/errors.ts';
import { writeFileAtomic } from '../../task/fs/atomic-write.ts';
import { type HistoryRecord, historyRecordSchema } from '../api/worker-schemas.ts';
import { isFinal, isRunning, previewOf, seconds, type TaskSummary, toSummary } from './task-record.ts';

/** Options for {@link createHistoryStore}. */
export type HistoryStoreOptions = {
  /** `agents/<name>/history/`: one `<task_id>.json` per task. */
  dir: string;
  /** How many finished records are kept; older ones are deleted. Open ones (running, idle) are always kept. */
  limit: number;
  now: () => number;
  warn(message: string): void;
};

/** A worker's task records on disk, surviving restarts. */
export type HistoryStore = {
  /**
   * Reads every record. One its worker left running (killed, crashed) is rewritten as `failed` with error type
   * `worker_lost`; torn temp files are removed, and a record that does not parse is moved aside as `.corrupt`.
   * Returns the records rewritten, and the idle sessions, which a restarted worker still continues.
   */
  recover(): Promise<{ lost: HistoryRecord[]; idle: HistoryRecord[] }>;
  /**
   * Writes a record atomically and durably (writes are applied in call order), then drops old finished ones.
   * `durable: false` skips the fsyncs: the record survives the worker being killed, not a power loss.
   */
  save(record: HistoryRecord, options?: { durable?: boolean }): Promise<void>;
  read(taskId: string): Promise<HistoryRecord | undefined>;
  /** A page of summaries, newest first. */
  page(page: number, limit: number): { items: TaskSummary[]; total: number };
};

/** Creates the history store of a worker (see {@link HistoryStore}). */
export function createHistoryStore({ dir, limit, now, warn }: HistoryStoreOptions): HistoryStore {
  // Newest first: task ids sort by creation time.
  const index = new Map<string, TaskSummary>();
  // Records saved but not yet on disk: reads see them at once.
  const pending = new Map<string, HistoryRecord>();
  let queue: Promise<unknown> = Promise.resolve();
  const fileOf = (taskId: string) => join(dir, `${taskId}.json`);
  const sortedIds = () => [...index.keys()].sort().reverse();

  const write = async (record: HistoryRecord, durable: boolean) => {
    await writeFileAtomic(fileOf(record.task_id), `${JSON.stringify(record)}\n`, { mode: 0o600, durable });
    index.set(record.task_id, toSummary(record, now()));
    const finished = sortedIds().filter((id) => isFinal(index.get(id)!.state));
    for (const old of finished.slice(limit)) {
      index.delete(old);
      await unlink(fileOf(old)).catch(() => undefined);
    }
  };

  const save = (record: HistoryRecord, { durable = true }: { durable?: boolean } = {}) => {
    const snapshot = structuredClone(record);
    pending.set(snapshot.task_id, snapshot);
    index.set(snapshot.task_id, toSummary(snapshot, now()));
    const done = queue
      .then(() => write(snapshot, durable))
      .finally(() => {
        if (pending.get(snapshot.task_id) === snapshot) pending.delete(snapshot.task_id);
      });
    queue = done.catch(() => undefined);
    return done;
  };

  return {
    save,
    async recover() {
      await mkdir(dir, { recursive: true, mode: 0o700 });
      const lost: HistoryRecord[] = [];
      const idle: HistoryRecord[] = [];
      for (const record of await readRecords(dir, warn)) {
        if (isRunning(record.state)) {
          markLost(record, now());
          lost.push(record);
        } else if (record.state === 'idle') idle.push(record);
        index.set(record.task_id, toSummary(record, now()));
      }
      for (const record of lost) await save(record);
      return { lost, idle };
    },
    async read(taskId) {
      const unsaved = pending.get(taskId);
      if (unsaved) return structuredClone(unsaved);
      const text = await readFile(fileOf(taskId), 'utf8').catch(() => undefined);
      if (text === undefined) return undefined;
      const parsed = historyRecordSchema.safeParse(JSON.parse(text));
      return parsed.success ? parsed.data : undefined;
    },
    page(page, size) {
      const ids = sortedIds();
      const items = ids.slice((page - 1) * size, page * size).map((id) => live(index.get(id)!, now()));
      return { items, total: ids.length };
    },
  };
}

// Every record of the directory, in task order; torn temp files are removed, and a file that is not a record is
// moved aside as `.corrupt` (with a warning).
async function readRecords(dir: string, warn: (message: string) => void): Promise<HistoryRecord[]> {
  const records: HistoryRecord[] = [];
  for (const name of (await readdir(dir)).sort()) {
    const file = join(dir, name);
    if (isTempFileName(name)) {
      await unlink(file).catch(() => undefined);
      continue;
    }
    if (!name.endsWith('.json')) continue;
    const record = await parseRecord(file, name, warn);
    if (record) records.push(record);
    else await rename(file, `${file}.corrupt`).catch(() => undefined);
  }
  return records;
}

async function parseRecord(
  file: string,
  name: string,
  warn: (message: string) => void,
): Promise<HistoryRecord | undefined> {
  try {
    const parsed = historyRecordSchema.safeParse(JSON.parse(await readFile(file, 'utf8')));
    if (parsed.success && `${parsed.data.task_id}.json` === name) return parsed.data;
    warn(`history: ${file} is not a task record (${parsed.error?.issues[0]?.message ?? 'wrong name'}); moved aside`);
  } catch (error) {
    warn(`history: ${file} cannot be read (${errorMessage(error)}); moved aside`);
  }
  return undefined;
}

function markLost(record: HistoryRecord, now: number): void {
  const was = record.state;
  const at = new Date(now).toISOString();
  record.state = 'failed';
  record.error = {
    type: 'worker_lost',
    message: `The worker stopped (killed or crashed) while the task was ${was}; found at its restart at ${at}`,
  };
  record.completed_at = at;
  record.duration_seconds = record.started_at ? seconds(now - Date.parse(record.started_at)) : null;
  record.log.push({ time: at, level: 'error', message: `worker lost while ${was}: ${previewOf(record.prompt)}` });
}

// A running task's duration counts up to now.
function live(summary: TaskSummary, now: number): TaskSummary {
  if (!isRunning(summary.state) || !summary.started_at) return summary;
  return { ...summary, duration_seconds: seconds(now - Date.parse(summary.started_at)) };
}
