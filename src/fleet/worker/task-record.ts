import type { HistoryRecord, WorkerTask, WorkerTaskState } from '../api/worker-schemas.ts';
import { FINAL_WORKER_TASK_STATES } from '../api/worker-schemas.ts';

/** A history page's item: the task without its output, with the start of its prompt. */
export type TaskSummary = Omit<WorkerTask, 'output'> & { prompt_preview: string };

/** One lifecycle line of a task or of the worker. */
export type LogLine = HistoryRecord['log'][number];

/** How much raw executor output a record keeps of each stream (the end of it). */
export const RAW_OUTPUT_BYTES = 1024 * 1024;
/** How many lifecycle lines a record keeps (the last ones). */
export const TASK_LOG_LINES = 500;
const PREVIEW_CHARS = 80;

/** True for a state a task never leaves. */
export function isFinal(state: WorkerTaskState): boolean {
  return (FINAL_WORKER_TASK_STATES as readonly string[]).includes(state);
}

/** True while the task's executor runs (or is being stopped): the worker is busy. */
export function isRunning(state: WorkerTaskState): boolean {
  return state === 'queued' || state === 'working' || state === 'cancelling';
}

/** The start of a prompt on one line, as `/status` and `/history` show it. */
export function previewOf(prompt: string): string {
  const line = prompt.replace(/\s+/g, ' ').trim();
  return line.length > PREVIEW_CHARS ? `${line.slice(0, PREVIEW_CHARS - 1)}…` : line;
}

/** The task as `GET /task/:id` shows it; a running task's duration counts up to `now`. */
export function toWorkerTask(record: HistoryRecord, now: number): WorkerTask {
  const { prompt: _prompt, log: _log, stdout: _stdout, stderr: _stderr, workdir: _workdir, ...task } = record;
  if (isRunning(record.state) && record.started_at)
    task.duration_seconds = seconds(now - Date.parse(record.started_at));
  return task;
}

/** The record as a history page lists it. */
export function toSummary(record: HistoryRecord, now: number): TaskSummary {
  const { output: _output, ...task } = toWorkerTask(record, now);
  return { ...task, prompt_preview: previewOf(record.prompt) };
}

/** `text` followed by `more`, keeping the last `max` characters, with a marker where the start was cut. */
export function appendTail(text: string, more: string, max = RAW_OUTPUT_BYTES): string {
  const joined = text + more;
  if (joined.length <= max) return joined;
  const kept = joined.slice(joined.length - max);
  return `[… ${joined.length - max} earlier characters dropped …]\n${kept}`;
}

/** Adds a lifecycle line to a record, keeping the last {@link TASK_LOG_LINES}. */
export function addLine(record: HistoryRecord, line: LogLine): void {
  record.log.push(line);
  if (record.log.length > TASK_LOG_LINES) record.log.splice(0, record.log.length - TASK_LOG_LINES);
}

/** Whole seconds (to the millisecond) between two instants, never negative. */
export function seconds(ms: number): number {
  return Math.max(0, Math.round(ms) / 1_000);
}
