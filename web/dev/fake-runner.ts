// Runs the fake tasks' scripts: seeded tasks all at once in the past, live ones a step at a time on a timer.
import type { DecisionRequest, StartTaskRequest, TaskDetail } from '../../src/api/schemas.ts';
import type { ApprovalDecision } from '../../src/task/contracts/approvals.ts';
import type { StopReason } from '../../src/task/contracts/state.ts';
import { ulid } from './fake-ids.ts';
import { briefPlan } from './fake-plans.ts';
import { act, askPlanApproval, finish, finishTask, phase, proposePlan, toolCall, verify } from './fake-scripts.ts';
import { emit, endStreams, tasks, type FakeTask, type Step } from './fake-store.ts';

/** A refusal the HTTP layer turns into `{error, message, details}`. */
export class ApiFailure extends Error {
  readonly status: number;
  readonly code: string;
  constructor(status: number, code: string, message: string) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

const LIMITS = {
  max_wall_clock_ms: 1_800_000,
  max_iterations: 40,
  max_consecutive_tool_iterations: 10,
  tool_timeout_ms: 60_000,
  max_total_tokens: 250_000,
  max_cost_usd: 2,
  verify_reserve: 0.1,
};

/** A task record with nothing journaled yet. */
export function createTask({
  goal,
  brief,
  model,
  createdAt = Date.now(),
  limits = {},
}: {
  goal: string;
  brief: string;
  model: string | null;
  createdAt?: number;
  limits?: Partial<typeof LIMITS>;
}): FakeTask {
  const id = `task_${ulid(createdAt)}`;
  const merged = { ...LIMITS, ...limits };
  const detail: TaskDetail = {
    id,
    kind: 'task',
    status: 'queued',
    finish_reason: null,
    stuck: null,
    goal,
    model,
    phase: null,
    created_at: new Date(createdAt).toISOString(),
    updated_at: new Date(createdAt).toISOString(),
    usage: {
      input_tokens: 0,
      output_tokens: 0,
      total_tokens: 0,
      reasoning_tokens: 0,
      cached_input_tokens: 0,
      cost_usd: 0,
    },
    budgets: {
      limits: merged,
      remaining: {
        wall_clock_ms: merged.max_wall_clock_ms,
        iterations: merged.max_iterations,
        tokens: merged.max_total_tokens,
        cost_usd: merged.max_cost_usd,
      },
    },
    pending_approvals: 0,
    brief,
    spec: { version: 'task.spec.v1', task_id: id, goal, model, loop: 'gather-plan-act-verify', budgets: merged },
    plans: [],
    verify: [],
    approvals: [],
    deliverables: [],
    last_seq: 0,
    files: [],
  };
  const task: FakeTask = {
    detail,
    frames: [],
    listeners: new Set(),
    script: [],
    waitingFor: undefined,
    endless: false,
    result: undefined,
    files: new Map(),
    stale: new Set(),
    clock: undefined,
  };
  tasks.set(id, task);
  return task;
}

/** Runs one step of a task's script. */
export function runStep(task: FakeTask): void {
  const step = task.script.shift();
  if (!step) return;
  step.effect?.(task);
  if (step.frame) emit(task, typeof step.frame === 'function' ? step.frame(task) : step.frame);
  if (task.detail.finish_reason !== null) endStreams(task);
}

/** Runs a seeded task's script at once, its clock advancing from its creation, until it ends or pauses. */
export function runSeeded(task: FakeTask, stepMs = 2_500): void {
  const last = task.frames[task.frames.length - 1];
  let time = last ? Date.parse(last.ts) : Date.parse(task.detail.created_at);
  task.clock = () => time;
  task.detail.status = 'running';
  if (!last)
    emit(task, { type: 'run.started', message: `Run ${task.detail.id} started`, data: { spec: task.detail.spec } });
  while (task.script.length > 0 && task.waitingFor === undefined) {
    time += stepMs * (0.5 + Math.random());
    runStep(task);
  }
  task.clock = undefined;
}

/** Starts the timer that moves live tasks forward, one step each per tick. */
export function startTicker(tickMs: number): void {
  setInterval(() => {
    for (const task of tasks.values()) {
      const { status } = task.detail;
      if (status === 'queued') {
        task.detail.status = 'running';
        emit(task, { type: 'run.started', message: `Run ${task.detail.id} started`, data: { spec: task.detail.spec } });
        continue;
      }
      if (status !== 'running' || task.waitingFor !== undefined) continue;
      if (task.script.length === 0 && task.endless)
        task.script.push(...act(['read_file', 'sandbox_exec', 'write_file']));
      runStep(task);
    }
  }, tickMs).unref();
}

/** The script of a task submitted from the form: a short run that asks for its plan to be approved. */
export function briefScript(goal: string, brief: string): Step[] {
  const plan = briefPlan(goal);
  return [
    ...phase('gather', 'files', (step) => [...toolCall(step, 'list_files'), ...toolCall(step, 'read_file')]),
    ...proposePlan(plan, 'proposed by the model'),
    ...askPlanApproval(plan, `Plan v1 for: ${goal}`),
    ...act(['read_file', 'write_file']),
    ...verify(plan, true),
    ...finish(
      'completed',
      { 'progress/artifacts/result.md': `# ${goal}\n\nDone, from this brief:\n\n${brief}\n` },
      `Wrote result.md for “${goal}”.`,
    ),
  ];
}

/** Starts a task from the API's request. */
export function startFromRequest(request: StartTaskRequest): FakeTask {
  const goal =
    request.goal ?? /^#\s*(.+)$/m.exec(request.brief)?.[1]?.trim() ?? request.brief.split('\n')[0]!.slice(0, 80);
  const limits = Object.fromEntries(
    Object.entries(request.budgets ?? {}).filter(([key]) => key.startsWith('max_') || key === 'tool_timeout_ms'),
  );
  const task = createTask({ goal, brief: request.brief, model: request.model ?? 'openai:gpt-4.1-mini', limits });
  task.detail.files = (request.files ?? []).map((file) => `task/${file.name}`);
  task.script = briefScript(goal, request.brief);
  if (request.hold) task.detail.status = 'created';
  return task;
}

/** Records a decision and moves the waiting task on. */
export function decide(requestId: string, body: DecisionRequest, principal: string): ApprovalDecision {
  for (const task of tasks.values()) {
    const approval = task.detail.approvals.find((item) => item.request.id === requestId);
    if (!approval) continue;
    if (body.task_id && body.task_id !== task.detail.id)
      throw new ApiFailure(404, 'not_found', `Request ${requestId} does not belong to task ${body.task_id}.`);
    if (approval.decision) {
      if (approval.decision.decision === body.decision) return approval.decision;
      throw new ApiFailure(
        409,
        'conflict',
        `Request ${requestId} was already ${approval.decision.decision} by ${approval.decision.approved_by}.`,
      );
    }
    if (approval.state === 'expired' || Date.parse(approval.request.expires_at) < Date.now())
      throw new ApiFailure(
        409,
        'conflict',
        `Request ${requestId} expired at ${approval.request.expires_at}; resume the task to ask again.`,
      );
    if (task.stale.has(requestId))
      throw new ApiFailure(
        409,
        'conflict',
        `The plan changed after request ${requestId} was made; the run will ask again for the new plan.`,
      );
    const { request } = approval;
    const decision: ApprovalDecision = {
      id: requestId,
      decision: body.decision,
      approved_by: principal,
      timestamp: new Date().toISOString(),
      ...(request.type === 'plan' ? { plan_sig: request.plan_sig } : { args_digest: request.args_digest }),
      ...(body.reason ? { reason: body.reason } : {}),
    };
    approval.decision = decision;
    approval.state = 'decided';
    task.waitingFor = undefined;
    task.detail.stuck = null;
    emit(task, {
      type: 'approval.decided',
      message: `${request.type === 'plan' ? 'Plan' : request.tool_name} ${body.decision} by ${principal}`,
      data: {
        id: requestId,
        type: request.type,
        decision: body.decision,
        by: principal,
        at: decision.timestamp,
        ...(body.reason ? { reason: body.reason } : {}),
      },
    });
    if (request.type === 'plan') {
      const version = task.detail.plans.find((plan) => plan.signature === request.plan_sig);
      if (version && body.decision === 'approved') version.approved = true;
      // Older plan requests of this task can no longer be decided once a newer plan is.
      for (const other of task.detail.approvals)
        if (other.request.type === 'plan' && other.state === 'pending') other.state = 'expired';
      if (body.decision === 'denied') return stopWith(task, 'approval.denied', decision);
    } else if (body.decision === 'denied') {
      emit(task, {
        type: 'tool.blocked',
        message: `${request.tool_name} denied by ${principal}`,
        data: { tool_call_id: request.tool_call_id, tool: request.tool_name, reason: 'approval denied' },
      });
    }
    if (task.detail.status === 'waiting_approval') task.detail.status = 'running';
    return decision;
  }
  throw new ApiFailure(404, 'not_found', `No approval request ${requestId}.`);
}

function stopWith<T>(task: FakeTask, reason: StopReason, value: T): T {
  finishTask(task, reason);
  emit(task, { type: 'finish', message: `Run finished: ${reason}`, data: { reason } });
  endStreams(task);
  return value;
}

/** Stops a task that has not finished. */
export function stopTask(task: FakeTask, reason: 'stopped' | 'cancelled'): void {
  const { status } = task.detail;
  if (status === 'completed' || status === 'failed' || status === 'stopped')
    throw new ApiFailure(
      409,
      'already_completed',
      `Task ${task.detail.id} has already finished (${task.detail.finish_reason}).`,
    );
  task.waitingFor = undefined;
  stopWith(task, reason, undefined);
}

const FINAL: readonly string[] = ['completed', 'approval.denied', 'verify.failed', 'no_more_tools'];

/** Resumes a task that stopped before its work was done, with raised budgets if given. */
export function resumeTask(task: FakeTask, budgets: Record<string, number> | undefined): void {
  const { detail } = task;
  if (detail.status === 'running' || detail.status === 'queued' || detail.status === 'waiting_approval')
    throw new ApiFailure(409, 'task_in_progress', `Task ${detail.id} is ${detail.status}; there is nothing to resume.`);
  if (detail.finish_reason && FINAL.includes(detail.finish_reason))
    throw new ApiFailure(
      409,
      'already_completed',
      `Task ${detail.id} finished for good (${detail.finish_reason}); start a new task instead.`,
    );
  emit(task, {
    type: 'run.resumed',
    message: `Run resumed from seq ${detail.last_seq}`,
    data: { from_seq: detail.last_seq },
  });
  if (budgets && detail.budgets) {
    const previous = detail.budgets.limits;
    detail.budgets.limits = { ...previous, ...budgets };
    const { limits, remaining } = detail.budgets;
    detail.budgets.remaining = {
      ...remaining,
      ...(budgets['max_total_tokens'] && limits.max_total_tokens
        ? { tokens: limits.max_total_tokens - (detail.usage?.total_tokens ?? 0) }
        : {}),
      ...(budgets['max_iterations'] ? { iterations: budgets['max_iterations'] } : {}),
    };
    emit(task, {
      type: 'budget.changed',
      message: 'Budgets raised on resume',
      data: { by: 'dashboard', at: new Date().toISOString(), previous, limits: detail.budgets.limits },
    });
  }
  detail.status = 'running';
  detail.finish_reason = null;
  detail.stuck = null;
  task.result = undefined;
  const pending = detail.approvals.find((item) => item.state === 'pending');
  if (pending) {
    detail.status = 'waiting_approval';
    task.waitingFor = pending.request.id;
  }
  if (task.script.length === 0 && !task.endless) {
    const plan = detail.plans[detail.plans.length - 1]?.plan;
    task.script.push(
      ...act(['read_file', 'write_file']),
      ...(plan ? verify(plan, true) : []),
      ...finish(
        'completed',
        { 'progress/artifacts/resumed.md': '# Resumed\n\nFinished after a resume.\n' },
        'Finished after a resume.',
      ),
    );
  }
}
