import type { StartTaskRequest, TaskAction, TaskResult } from '../api/schemas.ts';
import { AgencyError } from '../core/errors.ts';
import type { ResultView } from '../task/result.ts';
import { actionOf, enqueueStart, recordOf, type ServiceCore, taskRootOf } from './service-core.ts';
import { createTaskFolder, inlineFiles } from './task-intake.ts';
import { goalOf, readTaskRecord, TASK_REQUEST_VERSION, taskSpecOf, writeTaskRequest } from './task-records.ts';
import type { Principal } from './task-service.ts';
import { resultOf } from './task-views.ts';

/** Creates a task from a request: its folder and request record, then its run is queued (or held for uploads). */
export async function startTask(core: ServiceCore, request: StartTaskRequest, by: Principal): Promise<TaskAction> {
  const model = checkRequest(core, request);
  const files = inlineFiles(request, core.limits);
  const id = core.newId('task');
  const taskRoot = taskRootOf(core, id);
  await createTaskFolder(taskRoot, request.brief, files);
  await writeTaskRequest(taskRoot, {
    version: TASK_REQUEST_VERSION,
    task_id: id,
    created_at: new Date(core.now()).toISOString(),
    created_by: by.name,
    hold: request.hold === true,
    model,
    goal: goalOf(request.brief, request.goal),
    spec: taskSpecOf(request, model),
    start_error: null,
  });
  const record = await readTaskRecord(taskRoot, id);
  if (!request.hold) enqueueStart(core, id, record);
  core.logger.info({ task_id: id, by: by.name, hold: request.hold === true }, 'task created');
  return actionOf(core, id, record, request.hold ? 'Held: upload files, then start it' : 'Queued');
}

/** Starts a task and waits for its run to end, then answers with its result. */
export async function startAndWait(
  core: ServiceCore,
  request: StartTaskRequest,
  by: Principal,
  view: ResultView,
): Promise<TaskResult> {
  const started = await startTask(core, { ...request, hold: false }, by);
  await core.queue.settled(started.task_id);
  return resultOf(await recordOf(core, started.task_id), view);
}

// The model a request names must be one this service runs, and its approval mode one it allows.
function checkRequest(core: ServiceCore, request: StartTaskRequest): string {
  const { models, approvalModes } = core;
  const model = request.model ?? models[0]!;
  if (!models.includes(model))
    throw new AgencyError(
      'invalid_argument',
      `model: "${model.slice(0, 200)}" is not a model this server runs; allowed: ${models.join(', ')}`,
      { details: { field: 'model', allowed: [...models] } },
    );
  const mode = request.approvals?.mode ?? 'file';
  if (!approvalModes.includes(mode))
    throw new AgencyError(
      'invalid_argument',
      `approvals.mode: "${mode}" is not allowed on this server; allowed: ${approvalModes.join(', ')}`,
      { details: { field: 'approvals.mode', allowed: [...approvalModes] } },
    );
  return model;
}
