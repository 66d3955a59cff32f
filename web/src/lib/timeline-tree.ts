import type { EventFrame, UsageJson } from '../api/types.ts';

/** How a group in the timeline ended, or that it is still going. */
export type GroupState = 'running' | 'done' | 'skipped' | 'failed' | 'suspended' | 'stopped';

/** A run of frames the timeline shows together: a workflow step's attempt, or a network's delegation. */
export type TimelineGroup = {
  key: string;
  type: 'step' | 'agent';
  /** The step id, or the delegation's path (`newsroom › researcher`). */
  label: string;
  /** The step's kind and attempt, or the delegation's depth. */
  detail: string;
  state: GroupState;
  /** A step that ran while another step of the workflow was running. */
  parallel: boolean;
  durationMs: number | null;
  usage: UsageJson | null;
  children: TimelineNode[];
};

/** A frame shown on its own, or a group of them. */
export type TimelineNode = { frame: EventFrame } | { group: TimelineGroup };

type Open = { steps: Map<string, TimelineGroup>; agents: Map<string, TimelineGroup> };

/**
 * Nests a journal's frames for the timeline: a workflow step's frames (`data.phase: 'workflow'`) under its attempt,
 * and a network's delegation (`agent.start` … `agent.finish`, matched by `run_id`) under the step or delegation it ran
 * in. Frames outside any group, and every frame of a governed run without delegations, stay as they are.
 */
export function timelineTree(frames: readonly EventFrame[]): TimelineNode[] {
  const root: TimelineNode[] = [];
  const open: Open = { steps: new Map(), agents: new Map() };
  for (const frame of frames) {
    if (isWorkflowFrame(frame) && frame.type === 'phase.start') {
      root.push({ group: startStep(frame, open) });
    } else if (frame.type === 'agent.start') {
      const group = agentGroup(frame);
      const parent = open.agents.get(text(frame.data?.parent_run_id)) ?? stepOf(frame, open);
      (parent ? parent.children : root).push({ group });
      open.agents.set(text(frame.data?.run_id), group);
    } else if (frame.type === 'agent.event' || frame.type === 'agent.finish') {
      const group = open.agents.get(text(frame.data?.run_id)) ?? stepOf(frame, open);
      (group ? group.children : root).push({ frame });
      if (group && frame.type === 'agent.finish') finishAgent(group, frame, open);
    } else if (frame.type === 'finish') {
      closeAll(frame, open);
      root.push({ frame });
    } else {
      const step = isWorkflowFrame(frame) || frame.type === 'error' ? stepOf(frame, open) : undefined;
      (step ? step.children : root).push({ frame });
      if (step) endStep(step, frame, open);
    }
  }
  return root;
}

function isWorkflowFrame(frame: EventFrame): boolean {
  return frame.data?.phase === 'workflow' && typeof frame.step === 'string';
}

function stepOf(frame: EventFrame, open: Open): TimelineGroup | undefined {
  return frame.step === undefined ? undefined : open.steps.get(frame.step);
}

function startStep(frame: EventFrame, open: Open): TimelineGroup {
  const step = frame.step ?? '';
  const parallel = open.steps.size > 0;
  for (const other of open.steps.values()) other.parallel = true;
  const group: TimelineGroup = {
    key: `step:${step}:${frame.seq}`,
    type: 'step',
    label: step,
    detail: `${frame.step_kind ?? 'step'} · attempt ${text(frame.data?.attempt) || '1'}`,
    state: 'running',
    parallel,
    durationMs: null,
    usage: null,
    children: [{ frame }],
  };
  open.steps.set(step, group);
  return group;
}

// A step's attempt ends with its phase.finish, the warning of a failed attempt, or the error that failed the run.
function endStep(group: TimelineGroup, frame: EventFrame, open: Open): void {
  if (frame.type === 'phase.finish') {
    group.state = frame.data?.status === 'skipped' ? 'skipped' : 'done';
    group.durationMs = numberOr(frame.data?.duration_ms);
    group.usage = (frame.data?.usage as UsageJson | undefined) ?? null;
  } else if (frame.type === 'warning' || frame.type === 'error') {
    group.state = 'failed';
  } else {
    return;
  }
  open.steps.delete(group.label);
}

function agentGroup(frame: EventFrame): TimelineGroup {
  const path = Array.isArray(frame.data?.path) ? (frame.data.path as unknown[]).map(String) : [];
  return {
    key: `agent:${text(frame.data?.run_id)}:${frame.seq}`,
    type: 'agent',
    label: path.length > 0 ? path.join(' › ') : text(frame.data?.agent),
    detail: `depth ${text(frame.data?.depth) || '1'}`,
    state: 'running',
    parallel: false,
    durationMs: null,
    usage: null,
    children: [{ frame }],
  };
}

function finishAgent(group: TimelineGroup, frame: EventFrame, open: Open): void {
  const reason = frame.data?.finish_reason;
  group.state = frame.error || reason === 'error' ? 'failed' : reason === 'suspended' ? 'suspended' : 'done';
  group.durationMs = numberOr(frame.data?.duration_ms);
  group.usage = (frame.data?.usage as UsageJson | undefined) ?? null;
  open.agents.delete(text(frame.data?.run_id));
}

// The run ended: the step it names waits for input; whatever else was open stopped with it.
function closeAll(finish: EventFrame, open: Open): void {
  for (const group of open.steps.values())
    group.state = group.label === finish.step && finish.data?.suspended ? 'suspended' : 'stopped';
  for (const group of open.agents.values()) group.state = 'stopped';
  open.steps.clear();
  open.agents.clear();
}

function text(value: unknown): string {
  return typeof value === 'string' || typeof value === 'number' ? String(value) : '';
}

function numberOr(value: unknown): number | null {
  return typeof value === 'number' ? value : null;
}
