import type { TaskStatus, TaskSummary } from '../api/schemas.ts';
import { AgencyError } from '../core/errors.ts';
import { addUsage, emptyUsage } from '../core/usage.ts';
import { type WorkflowMarker, checkWorkflowMarker, readWorkflowMarker } from '../compose/workflow/workflow-marker.ts';
import type { WorkflowSpec } from '../compose/workflow/restore-run.ts';
import { usageFromJson, usageToJson } from '../task/budgets.ts';
import { type EventFrame, usageJsonSchema } from '../task/contracts/events.ts';
import { STOP_REASONS, type StopReason } from '../task/contracts/state.ts';
import type { TaskFiles } from '../task/fs/task-files.ts';
import { readJournal } from '../task/journal/read-journal.ts';
import type { TaskPaths } from '../task/layout.ts';

/** A durable workflow run found in a task root: its marker, checked against the journal, and the journal's frames. */
export type WorkflowRun = { marker: WorkflowMarker; spec: WorkflowSpec; frames: EventFrame[] };

/**
 * Reads a root's workflow run, or undefined when the root has no `workflow.json`.
 * @throws AgencyError `path_symlink_escape` for a linked marker; `task_folder_invalid` for a malformed marker, or one
 * the journal does not bear out (no journal, a governed task's, another workflow's).
 */
export async function readWorkflowRun(files: TaskFiles, paths: TaskPaths): Promise<WorkflowRun | undefined> {
  const marker = await readWorkflowMarker(files, paths.root);
  if (!marker) return undefined;
  const frames = await readJournal(paths.events).then(
    (journal) => journal.frames,
    (error: unknown) => {
      if (AgencyError.hasCode(error, 'path_not_found')) return [];
      throw error;
    },
  );
  return { marker, spec: checkWorkflowMarker(marker, frames, paths.root), frames };
}

/** A workflow run's row of the task list: its state from the journal's last start and finish, and the lock. */
export function workflowSummaryOf(
  id: string,
  run: WorkflowRun,
  running: boolean,
): Omit<TaskSummary, 'pending_approvals'> {
  const { frames, marker, spec } = run;
  const lastStart = frames.findLastIndex((frame) => frame.type === 'run.started' || frame.type === 'run.resumed');
  const finish = frames.slice(lastStart).findLast((frame) => frame.type === 'finish');
  const reason = finishReasonOf(finish);
  const status: TaskStatus = running
    ? 'running'
    : !finish
      ? 'interrupted'
      : reason === 'completed'
        ? 'completed'
        : reason === 'error'
          ? 'failed'
          : 'stopped';
  return {
    id,
    kind: 'workflow',
    status,
    finish_reason: status === 'running' ? null : reason,
    stuck: status === 'interrupted' ? 'interrupted' : null,
    goal: `${marker.workflow}: ${spec.input.split('\n')[0]?.slice(0, 200) ?? ''}`,
    model: null,
    phase: status === 'running' ? stepsInFlight(frames.slice(lastStart)) : null,
    created_at: marker.started_at,
    updated_at: frames.at(-1)?.ts ?? marker.started_at,
    usage: usageToJson(stepUsage(frames)),
    budgets: null,
  };
}

function finishReasonOf(finish: EventFrame | undefined): StopReason | null {
  const reason = finish?.data?.reason;
  return STOP_REASONS.find((known) => known === reason) ?? null;
}

// The steps started and not yet finished, as the run's phase.
function stepsInFlight(frames: readonly EventFrame[]): string | null {
  const open = new Set<string>();
  for (const frame of frames) {
    if (!frame.step || frame.data?.phase !== 'workflow') continue;
    if (frame.type === 'phase.start') open.add(frame.step);
    if (frame.type === 'phase.finish' || frame.type === 'warning') open.delete(frame.step);
  }
  return open.size > 0 ? [...open].join(', ') : null;
}

function stepUsage(frames: readonly EventFrame[]) {
  let total = emptyUsage();
  for (const frame of frames) {
    if (frame.type !== 'phase.finish' || frame.data?.phase !== 'workflow') continue;
    const parsed = usageJsonSchema.safeParse(frame.data.usage);
    if (parsed.success) total = addUsage(total, usageFromJson(parsed.data));
  }
  return total;
}

const VERB = { resume: 'resume', stop: 'stop', result: 'build a result for' } as const;
const INSTEAD = {
  resume: 'resume it with resumeWorkflow(workflow, { root }) in the code that defines the workflow',
  stop: "stop it through runWorkflow's signal in the process that runs it",
  result: 'its result is the finish frame of its journal (GET /agent/tasks/{id}/events)',
} as const;

/** The refusal of an action the server takes only on governed tasks, saying what to do instead. */
export function workflowRefusal(id: string, run: WorkflowRun, action: keyof typeof INSTEAD): AgencyError {
  return new AgencyError(
    'task_state_conflict',
    `Task ${id} is a run of workflow "${run.marker.workflow}", which the server shows but does not ${VERB[action]}: ` +
      INSTEAD[action],
    { details: { task_id: id, kind: 'workflow' } },
  );
}
