// The fake server's tasks: each a TaskDetail the API returns as is, its journal frames and its stream listeners.
import type { InboxItem, TaskDetail, TaskResult, TaskSummary } from '../../src/api/schemas.ts';
import type { EventFrame, EventInput } from '../../src/task/contracts/events.ts';
import { ulid } from './fake-ids.ts';

/** What a script step does to the task besides journaling its frame. */
export type Effect = (task: FakeTask) => void;

/** One step of a run's script: a frame, an effect, or both; `pause` stops the script until a decision. */
export type Step = { frame?: EventInput | ((task: FakeTask) => EventInput); effect?: Effect; pause?: boolean };

export type FakeTask = {
  detail: TaskDetail;
  frames: EventFrame[];
  listeners: Set<(frame: EventFrame | 'end') => void>;
  /** Steps not yet run; a live task runs them on a timer. */
  script: Step[];
  /** Set while the script waits for a decision on this request. */
  waitingFor: string | undefined;
  /** Makes more act steps whenever the script runs dry: the task never ends by itself. */
  endless: boolean;
  result: TaskResult | undefined;
  /** Deliverable contents by path. */
  files: Map<string, string>;
  /** Request ids whose plan changed after they were asked. */
  stale: Set<string>;
  /** A clock for seeded tasks, whose frames are dated in the past; live tasks use the real time. */
  clock: (() => number) | undefined;
};

export const tasks = new Map<string, FakeTask>();

/** Appends a frame to a task's journal, updates what the frame says about the task, and tells the listeners. */
export function emit(task: FakeTask, input: EventInput): EventFrame {
  const seq = task.frames.length + 1;
  const now = task.clock ? task.clock() : Date.now();
  const frame: EventFrame = {
    version: 'agent.events.v1',
    id: `evt_${ulid(now)}`,
    seq,
    ts: new Date(now).toISOString(),
    ...input,
  };
  task.frames.push(frame);
  const { detail } = task;
  detail.last_seq = seq;
  detail.updated_at = frame.ts;
  if (frame.type === 'phase.start' && typeof frame.data?.['phase'] === 'string') detail.phase = frame.data['phase'];
  if (frame.usage_delta && detail.usage) {
    for (const key of [
      'input_tokens',
      'output_tokens',
      'total_tokens',
      'reasoning_tokens',
      'cached_input_tokens',
    ] as const) {
      detail.usage[key] += frame.usage_delta[key];
    }
    detail.usage.cost_usd = round((detail.usage.cost_usd ?? 0) + (frame.usage_delta.cost_usd ?? 0));
  }
  if (frame.budgets_remaining && detail.budgets) detail.budgets.remaining = frame.budgets_remaining;
  for (const listener of task.listeners) listener(frame);
  return frame;
}

/** Tells a task's streams that its run has ended. */
export function endStreams(task: FakeTask): void {
  for (const listener of task.listeners) listener('end');
}

/** The task as a list row. */
export function summaryOf(task: FakeTask): TaskSummary {
  const {
    brief: _brief,
    spec: _spec,
    plans: _plans,
    verify: _verify,
    approvals: _approvals,
    deliverables: _deliverables,
    last_seq: _lastSeq,
    files: _files,
    ...summary
  } = task.detail;
  return { ...summary, pending_approvals: task.detail.approvals.filter((item) => item.state === 'pending').length };
}

/** Every undecided request across tasks, with its state as the inbox tells it. */
export function inbox(now: number): InboxItem[] {
  const items: InboxItem[] = [];
  for (const task of tasks.values()) {
    for (const approval of task.detail.approvals) {
      if (approval.state === 'decided') continue;
      const { request } = approval;
      const expired = approval.state === 'expired' || Date.parse(request.expires_at) < now;
      const plan =
        request.type === 'plan'
          ? (task.detail.plans.find((version) => version.signature === request.plan_sig)?.plan ?? null)
          : null;
      items.push({
        task_id: task.detail.id,
        goal: task.detail.goal,
        request,
        plan,
        state: expired ? 'expired' : task.stale.has(request.id) ? 'stale' : 'pending',
      });
    }
  }
  return items;
}

/** What the budgets leave after a model call of `tokens` costing `cost`, at the task's clock. */
export function remainingAfter(task: FakeTask, tokens: number, cost: number): EventFrame['budgets_remaining'] {
  const budgets = task.detail.budgets;
  if (!budgets) return undefined;
  const { limits, remaining } = budgets;
  const used = task.detail.usage?.total_tokens ?? 0;
  const spent = task.detail.usage?.cost_usd ?? 0;
  const now = task.clock ? task.clock() : Date.now();
  return {
    wall_clock_ms:
      limits.max_wall_clock_ms === null ? null : limits.max_wall_clock_ms - (now - Date.parse(task.detail.created_at)),
    iterations: remaining.iterations === null ? null : remaining.iterations - 1,
    tokens: limits.max_total_tokens === null ? null : limits.max_total_tokens - used - tokens,
    cost_usd: limits.max_cost_usd === null ? null : round(limits.max_cost_usd - spent - cost),
  };
}

function round(value: number): number {
  return Math.round(value * 1e6) / 1e6;
}
