import type { StartTaskRequest, TaskAction, TaskResult } from '../api/schemas.ts';
import { AgencyError } from '../core/errors.ts';
import type { ResultView } from '../task/result.ts';
import { actionOf, enqueueStart, liveOf, recordOf, type ServiceCore, taskRootOf } from './service-core.ts';
import { createTaskFolder, inlineFiles } from './task-intake.ts';
import { goalOf, readTaskRecord, TASK_REQUEST_VERSION, taskSpecOf, writeTaskRequest } from './task-records.ts';
import type { Principal } from './task-service.ts';
import { resultOf } from './task-views.ts';
import type { Role } from '../roles/role.ts';

/** Creates a task from a request: its folder and request record, then its run is queued (or held for uploads). */
export async function startTask(core: ServiceCore, request: StartTaskRequest, by: Principal): Promise<TaskAction> {
  const model = checkRequest(core, request);
  const role = await requestedRole(core, request.role);
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
    spec: withRoleBudgets(taskSpecOf(request, model), role),
    ...(role ? { role: role.name } : {}),
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
  return resultOf(await recordOf(core, started.task_id), view, liveOf(core, started.task_id));
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

// A role is checked against the service's registry before anything is written. The client is told which roles
// there are, never where they live; a role file the operator got wrong is logged in full and reported briefly.
async function requestedRole(core: ServiceCore, name: string | undefined): Promise<Role | undefined> {
  if (name === undefined) return undefined;
  const refuse = (message: string) =>
    new AgencyError('invalid_argument', `role: ${message}`, { details: { field: 'role' } });
  if (!core.roles) throw refuse('this server has no roles; leave "role" out');
  try {
    return await core.roles.get(name);
  } catch (error) {
    const wrapped = AgencyError.from(error);
    const known = wrapped.details?.known;
    if (Array.isArray(known)) throw refuse(`unknown role "${name.slice(0, 100)}"; the roles are ${known.join(', ')}`);
    if (wrapped.code === 'invalid_argument') throw refuse(wrapped.message);
    core.logger.error({ err: wrapped, role: name }, 'role file invalid');
    throw refuse(`the role "${name}" cannot be read on this server; its operator can see why in the server log`);
  }
}

// The role's budgets, under those the request gave.
function withRoleBudgets(spec: ReturnType<typeof taskSpecOf>, role: Role | undefined): ReturnType<typeof taskSpecOf> {
  return role?.budgets ? { ...spec, budgets: { ...role.budgets, ...spec.budgets } } : spec;
}
