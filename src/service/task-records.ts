import { z } from 'zod';
import type { StartTaskRequest, TaskStatus, TaskSummary } from '../api/schemas.ts';
import { AgencyError } from '../core/errors.ts';
import { writeFileAtomic } from '../task/fs/atomic-write.ts';
import { createTaskFiles, type TaskFiles } from '../task/fs/task-files.ts';
import { specSchema, type SpecFile } from '../task/contracts/spec.ts';
import type { StateFile } from '../task/contracts/state.ts';
import { createFileStateStore } from '../task/state-store.ts';
import { createFileBroker } from '../task/approvals/file-broker.ts';
import { goalFromBrief, parseContractFile } from '../task/task-spec.ts';
import { taskPaths, type TaskPaths } from '../task/layout.ts';
import { lockOwner } from '../task/lock.ts';
import { join } from 'node:path';
import { toBudgets } from './budgets.ts';
import { readWorkflowRun, type WorkflowRun, workflowSummaryOf } from './workflow-records.ts';

/** The version tag of `request.json`. */
export const TASK_REQUEST_VERSION = 'agency.task-request.v1';

/**
 * `<task root>/request.json`: what a client asked for, written by the service before the run exists. It is the only
 * record of a task that is held or queued (no `progress/spec.json` yet), so a restarted server finds it again. It
 * sits beside `task/` and `progress/`, where no tool reaches.
 */
export const taskRequestSchema = z
  .object({
    version: z.literal(TASK_REQUEST_VERSION),
    task_id: z.string(),
    created_at: z.iso.datetime(),
    created_by: z.string(),
    /** Held for uploads until `start`. */
    hold: z.boolean(),
    model: z.string(),
    goal: z.string(),
    /** The runner's `TaskSpec` the run starts with. */
    spec: z.record(z.string(), z.unknown()),
    /** The role the run takes its persona and tools from (docs/roles.md). */
    role: z.string().optional(),
    /** Why the run could not start, when it could not. */
    start_error: z.object({ code: z.string(), message: z.string() }).strict().nullable(),
  })
  .strict();

/** A task's request record. */
export type TaskRequest = z.infer<typeof taskRequestSchema>;

/** The file of a task's request record. */
export function requestFile(root: string): string {
  return join(root, 'request.json');
}

/** Writes the request record atomically and durably: until the run starts, it is all there is of the task. */
export async function writeTaskRequest(root: string, record: TaskRequest): Promise<void> {
  await writeFileAtomic(requestFile(root), `${JSON.stringify(record, null, 2)}\n`);
}

/** Reads a task's request record, or undefined for a task started elsewhere (the CLI). */
export async function readTaskRequest(files: TaskFiles, root: string): Promise<TaskRequest | undefined> {
  const text = await files.readText(requestFile(root));
  return text === undefined
    ? undefined
    : parseContractFile(requestFile(root), text, taskRequestSchema, 'state_corrupt');
}

/** What the service knows of a task besides its folder: whether it waits for a slot, runs here, or retries. */
export type LiveView = { queued: boolean; live: boolean; retrying: boolean };

/** Everything read from a task's folder to describe it. */
export type TaskRecord = {
  id: string;
  paths: TaskPaths;
  files: TaskFiles;
  request: TaskRequest | undefined;
  spec: SpecFile | undefined;
  state: StateFile | undefined;
  /** The process that holds the run's lock, if any. */
  owner: { pid: number; alive: boolean } | undefined;
  /** The durable workflow run the root holds, when it has a `workflow.json`. */
  workflow: WorkflowRun | undefined;
};

/**
 * Reads a task's request, spec, state and lock; a damaged file reads as missing, since the journal holds the run.
 * @throws AgencyError for a `workflow.json` that is linked, malformed or not borne out by the journal: such a root
 * is neither shown nor resumed.
 */
export async function readTaskRecord(root: string, id: string): Promise<TaskRecord> {
  const paths = taskPaths(root);
  const files = createTaskFiles(root);
  const [workflow, request, spec, state, owner] = await Promise.all([
    readWorkflowRun(files, paths),
    readTaskRequest(files, root).catch(() => undefined),
    readSpec(files, paths).catch(() => undefined),
    createFileStateStore(paths.progress)
      .read()
      .catch(() => undefined),
    lockOwner(paths.lock).catch(() => undefined),
  ]);
  return { id, paths, files, request, spec, state, owner, workflow };
}

async function readSpec(files: TaskFiles, paths: TaskPaths): Promise<SpecFile | undefined> {
  const text = await files.readText(paths.spec);
  return text === undefined ? undefined : parseContractFile(paths.spec, text, specSchema, 'state_corrupt');
}

/**
 * The status the service reports: the run's own, corrected by the queue and by the lock (a dead run is interrupted).
 * A run live here whose state already says how it ended is still closing (its journal, its lock, its result): it is
 * `running` until the queue releases it, so a client that sees `stopped` can resume it at once.
 */
export function statusOf(record: TaskRecord, live: LiveView): TaskStatus {
  if (live.queued) return 'queued';
  const { state } = record;
  if (!state) {
    if (record.request?.start_error) return 'failed';
    // A run that wrote its spec but not yet its state, live here or in the process holding its lock, is starting.
    const starting = live.live || record.owner?.alive === true;
    return record.request?.hold ? 'created' : record.spec ? (starting ? 'running' : 'interrupted') : 'queued';
  }
  const open = state.status === 'running' || state.status === 'waiting_approval';
  if (open && !live.live && !record.owner?.alive) return 'interrupted';
  if (!open && live.live) return 'running';
  return state.status;
}

/** A row of the task list, from the folder and what the service knows. */
export async function summaryOf(record: TaskRecord, live: LiveView): Promise<TaskSummary> {
  if (record.workflow) {
    const running = live.live || record.owner?.alive === true;
    return { ...workflowSummaryOf(record.id, record.workflow, running), pending_approvals: 0 };
  }
  const { state, spec, request } = record;
  const status = statusOf(record, live);
  const pending = state && status !== 'queued' ? (await pendingRequests(record)).length : 0;
  const created = request?.created_at ?? spec?.created_at ?? state?.started_at ?? new Date(0).toISOString();
  const finish = state?.finish_reason ?? null;
  return {
    id: record.id,
    kind: 'task',
    status,
    finish_reason: finish,
    stuck:
      status === 'waiting_approval' || pending > 0
        ? 'waiting_approval'
        : status === 'interrupted'
          ? 'interrupted'
          : finish?.startsWith('budget.') && status === 'stopped'
            ? 'over_budget'
            : live.retrying
              ? 'retrying'
              : null,
    goal: spec?.goal ?? request?.goal ?? '',
    model: spec?.model ?? request?.model ?? null,
    phase: state?.phase ?? null,
    created_at: created,
    updated_at: state?.updated_at ?? created,
    usage: state?.usage ?? null,
    budgets: state?.budgets ?? null,
    pending_approvals: pending,
  };
}

/** The requests of a task that wait for a decision. */
export async function pendingRequests(record: TaskRecord) {
  return createFileBroker(record.paths.progress, { mode: 'file' })
    .pending()
    .catch(() => []);
}

/** The goal a brief names, as the runner would take it. */
export function goalOf(brief: string, goal: string | undefined): string {
  return goal ?? goalFromBrief(brief);
}

/** The spec fields of a request, as the runner's `TaskSpec`. */
export function taskSpecOf(request: StartTaskRequest, model: string) {
  const budgets = request.budgets ?? {};
  const approvals = request.approvals ?? {};
  return {
    model,
    ...(request.goal ? { goal: request.goal } : {}),
    ...(request.loop ? { loop: request.loop } : {}),
    budgets: toBudgets(budgets),
    approvals: {
      mode: approvals.mode ?? 'file',
      ...(approvals.require_tools ? { requireTools: approvals.require_tools } : {}),
      ...(approvals.expires_in_ms ? { expiresInMs: approvals.expires_in_ms } : {}),
    },
  };
}

/** Throws `task_folder_invalid` naming a task whose folder is not a task folder. */
export function notATask(root: string, why: string): AgencyError {
  return new AgencyError('task_folder_invalid', `${root}: ${why}`);
}
