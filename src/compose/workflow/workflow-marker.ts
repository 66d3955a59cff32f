import { join } from 'node:path';
import { z } from 'zod';
import { AgencyError } from '../../core/errors.ts';
import type { EventFrame } from '../../task/contracts/events.ts';
import { writeFileAtomic } from '../../task/fs/atomic-write.ts';
import type { TaskFiles } from '../../task/fs/task-files.ts';
import { parseContractFile } from '../../task/task-spec.ts';
import type { WorkflowSpec } from './restore-run.ts';

/** The version tag of `workflow.json`. */
export const WORKFLOW_MARKER_VERSION = 'agency.workflow-run.v1';

/**
 * `<task root>/workflow.json`: says the root holds a durable workflow run, so `agency serve` lists and shows it
 * (and never resumes it as a governed task). It repeats the workflow's name and step ids from the journal's
 * `run.started` frame, which remains the record: a marker that disagrees with it is refused.
 */
export const workflowMarkerSchema = z
  .object({
    version: z.literal(WORKFLOW_MARKER_VERSION),
    workflow: z.string().min(1).max(200),
    steps: z.array(z.string().min(1).max(200)).min(1).max(10_000),
    started_at: z.iso.datetime(),
  })
  .strict();

/** A parsed `workflow.json`. */
export type WorkflowMarker = z.infer<typeof workflowMarkerSchema>;

/** The marker file of a task root. */
export function workflowMarkerFile(root: string): string {
  return join(root, 'workflow.json');
}

/** Writes the marker of a run that has journaled its `run.started` frame. */
export async function writeWorkflowMarker(root: string, spec: WorkflowSpec, startedAt: string): Promise<void> {
  const marker: WorkflowMarker = {
    version: WORKFLOW_MARKER_VERSION,
    workflow: spec.workflow,
    steps: spec.steps,
    started_at: startedAt,
  };
  await writeFileAtomic(workflowMarkerFile(root), `${JSON.stringify(marker, null, 2)}\n`);
}

/**
 * Reads a root's marker, or undefined when it has none.
 * @throws AgencyError `path_symlink_escape` for a marker that is a symbolic link; `task_folder_invalid` naming the
 * file and field of a malformed one.
 */
export async function readWorkflowMarker(files: TaskFiles, root: string): Promise<WorkflowMarker | undefined> {
  const file = workflowMarkerFile(root);
  const text = await files.readText(file);
  return text === undefined ? undefined : parseContractFile(file, text, workflowMarkerSchema, 'task_folder_invalid');
}

/**
 * Checks a marker against the journal it stands for: the first frame must be the `run.started` of the same
 * workflow with the same steps.
 * @throws AgencyError `task_folder_invalid` naming the marker and what disagrees.
 */
export function checkWorkflowMarker(marker: WorkflowMarker, frames: readonly EventFrame[], root: string): WorkflowSpec {
  const file = workflowMarkerFile(root);
  const first = frames[0];
  const spec = first?.type === 'run.started' ? (first.data?.spec as Partial<WorkflowSpec> | undefined) : undefined;
  const refuse = (why: string) =>
    new AgencyError(
      'task_folder_invalid',
      `${file}: ${why}. The marker is written by runWorkflow after its run.started frame; remove a marker that ` +
        'was not, or restore the journal it was written for',
      { details: { file } },
    );
  if (!first) throw refuse('progress/events.ndjson holds no run');
  if (spec?.kind !== 'workflow' || typeof spec.workflow !== 'string' || !Array.isArray(spec.steps)) {
    throw refuse("the journal's run.started frame is not a workflow run's");
  }
  const same =
    spec.steps.length === marker.steps.length && marker.steps.every((id, index) => spec.steps?.[index] === id);
  if (spec.workflow !== marker.workflow || !same) {
    throw refuse(
      `"workflow" and "steps" (${marker.workflow}: ${marker.steps.join(', ')}) differ from the journal's run.started ` +
        `(${spec.workflow}: ${spec.steps.join(', ')})`,
    );
  }
  return spec as WorkflowSpec;
}
