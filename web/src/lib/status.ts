import type { StuckReason, TaskStatus } from '../api/types.ts';
import type { Tone } from './tone.ts';

const STATUS_TONES: Record<TaskStatus, Tone> = {
  created: 'gray',
  queued: 'azure',
  running: 'blue',
  waiting_approval: 'orange',
  completed: 'green',
  failed: 'red',
  stopped: 'gray',
  interrupted: 'purple',
};

const STATUS_LABELS: Record<TaskStatus, string> = {
  created: 'Created',
  queued: 'Queued',
  running: 'Running',
  waiting_approval: 'Waiting for approval',
  completed: 'Completed',
  failed: 'Failed',
  stopped: 'Stopped',
  interrupted: 'Interrupted',
};

const STUCK_LABELS: Record<StuckReason, string> = {
  waiting_approval: 'needs a decision',
  over_budget: 'over budget',
  retrying: 'retrying model calls',
  interrupted: 'interrupted',
};

/** The badge colour of a task status. */
export function statusTone(status: TaskStatus): Tone {
  return STATUS_TONES[status];
}

/** A task status in words. */
export function statusLabel(status: TaskStatus): string {
  return STATUS_LABELS[status];
}

/** Why a task is stuck, in words. */
export function stuckLabel(reason: StuckReason): string {
  return STUCK_LABELS[reason];
}

/** The task list's filter chips, in order: each value is what `GET /agent/tasks?status=` takes ('all' sends none). */
export const TASK_LIST_FILTERS = [
  { value: 'all', label: 'All' },
  { value: 'running', label: 'Running' },
  { value: 'waiting_approval', label: 'Waiting for approval' },
  { value: 'failed', label: 'Failed' },
  { value: 'stuck', label: 'Stuck' },
] as const;

/** One of {@link TASK_LIST_FILTERS}' values. */
export type TaskListFilter = (typeof TASK_LIST_FILTERS)[number]['value'];

/** Reads a filter from the address bar, falling back to 'all' for anything unknown. */
export function parseTaskListFilter(value: string | null): TaskListFilter {
  return TASK_LIST_FILTERS.find((filter) => filter.value === value)?.value ?? 'all';
}

/** A task that may still change: its page keeps following it. */
export function isActive(status: TaskStatus): boolean {
  return status === 'created' || status === 'queued' || status === 'running' || status === 'waiting_approval';
}

/** Stop applies to a task that has not finished. */
export function canStop(status: TaskStatus): boolean {
  return isActive(status);
}

/** Resume applies to a task that ended before its work was done; the server refuses the rest with a reason. */
export function canResume(status: TaskStatus): boolean {
  return status === 'stopped' || status === 'interrupted' || status === 'failed';
}
