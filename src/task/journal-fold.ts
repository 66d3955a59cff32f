import { addUsage, emptyUsage, type Usage } from '../core/usage.ts';
import { usageFromJson } from './budgets.ts';
import type { EventFrame } from './contracts/events.ts';
import type { StopReason } from './contracts/state.ts';

/** A tool call as the journal remembers it, with its result if one was journaled. */
export type JournaledToolCall = {
  step: string | undefined;
  tool: string;
  argsDigest: string;
  idempotent: boolean;
  result?: {
    ok: boolean;
    modelOutput: unknown;
    output?: unknown;
    error?: { code: string; message: string } | undefined;
  };
};

/** An approval decision as the journal recorded it. */
export type JournaledDecision = {
  decision: 'approved' | 'denied' | 'expired';
  decidedBy: string;
  at: string;
  reason?: string;
};

/** What a run's journal says about it: the source of truth a resumed run rebuilds from. */
export type JournalFold = {
  lastSeq: number;
  /** The spec the run started with, as journaled in `run.started`; null before that frame. */
  spec: unknown;
  /** The output of every finished step, from its `phase.finish` frame. */
  stepOutputs: Map<string, unknown>;
  /** The digests of the checkpoints journaled for each step, in order. */
  checkpoints: Map<string, string[]>;
  /** Decisions journaled in `approval.decided`, by request id. */
  decisions: Map<string, JournaledDecision>;
  usage: Usage;
  modelCalls: number;
  consecutiveToolIterations: number;
  elapsedMs: number;
  phase: string;
  startedSteps: Set<string>;
  finishedSteps: Set<string>;
  planVersion: number;
  planSig: string | null;
  approvedPlanSig: string | null;
  verifyAttempts: number;
  finishReason: StopReason | null;
  toolCalls: Map<string, JournaledToolCall>;
  /** Approval requests already made, by `<step>:<plan_sig or args_digest>`, so a resumed run reuses them. */
  approvals: Map<string, string>;
};

/** Folds journal frames (optionally only up to `upToSeq`) into what they say about the run. */
export function foldJournal(frames: readonly EventFrame[], upToSeq = Number.POSITIVE_INFINITY): JournalFold {
  const fold: JournalFold = {
    lastSeq: 0,
    spec: null,
    stepOutputs: new Map(),
    checkpoints: new Map(),
    decisions: new Map(),
    usage: emptyUsage(),
    modelCalls: 0,
    consecutiveToolIterations: 0,
    elapsedMs: 0,
    phase: 'init',
    startedSteps: new Set(),
    finishedSteps: new Set(),
    planVersion: 0,
    planSig: null,
    approvedPlanSig: null,
    verifyAttempts: 0,
    finishReason: null,
    toolCalls: new Map(),
    approvals: new Map(),
  };
  for (const frame of frames) {
    if (frame.seq > upToSeq) break;
    fold.lastSeq = frame.seq;
    const data = frame.data ?? {};
    if (typeof data.elapsed_ms === 'number') fold.elapsedMs = Math.max(fold.elapsedMs, data.elapsed_ms);
    applyFrame(fold, frame, data);
  }
  return fold;
}

function applyFrame(fold: JournalFold, frame: EventFrame, data: Record<string, unknown>): void {
  switch (frame.type) {
    case 'usage.delta':
      if (frame.usage_delta) fold.usage = addUsage(fold.usage, usageFromJson(frame.usage_delta));
      fold.modelCalls++;
      fold.consecutiveToolIterations = Number(data.tool_calls ?? 0) > 0 ? fold.consecutiveToolIterations + 1 : 0;
      return;
    case 'phase.start':
      if (frame.step) fold.startedSteps.add(frame.step);
      if (typeof data.phase === 'string') fold.phase = data.phase;
      return;
    case 'run.started':
      fold.spec ??= data.spec ?? null;
      return;
    case 'run.resumed':
      // A run resumed after it stopped is open again: its earlier finish was not its last.
      fold.finishReason = null;
      return;
    case 'budget.changed':
      if (typeof fold.spec === 'object' && fold.spec !== null && typeof data.limits === 'object') {
        fold.spec = { ...fold.spec, budgets: data.limits };
      }
      return;
    case 'phase.finish':
      if (frame.step) {
        fold.finishedSteps.add(frame.step);
        if ('output' in data) fold.stepOutputs.set(frame.step, data.output);
      }
      return;
    case 'step.checkpoint':
      if (frame.step && typeof data.digest === 'string') {
        fold.checkpoints.set(frame.step, [...(fold.checkpoints.get(frame.step) ?? []), data.digest]);
      }
      return;
    case 'plan.proposed':
      fold.planVersion = Number(data.version ?? fold.planVersion);
      fold.planSig = typeof data.plan_sig === 'string' ? data.plan_sig : fold.planSig;
      return;
    case 'approval.requested':
      fold.approvals.set(`${frame.step ?? ''}:${String(data.plan_sig ?? data.args_digest ?? '')}`, String(data.id));
      return;
    case 'approval.decided':
      if (data.type === 'plan' && data.decision === 'approved' && typeof data.plan_sig === 'string')
        fold.approvedPlanSig = data.plan_sig;
      recordDecision(fold, data);
      return;
    case 'verify.pass':
    case 'verify.fail':
      fold.verifyAttempts = Math.max(fold.verifyAttempts, Number(data.attempt ?? 0));
      return;
    case 'tool.call':
      fold.toolCalls.set(String(data.tool_call_id), {
        step: frame.step,
        tool: String(data.tool),
        argsDigest: String(data.args_digest),
        idempotent: data.idempotent === true,
      });
      return;
    case 'tool.result': {
      const call = fold.toolCalls.get(String(data.tool_call_id));
      if (call) {
        call.result = {
          ok: data.ok === true,
          modelOutput: data.model_output,
          output: data.output,
          error: frame.error,
        };
      }
      return;
    }
    case 'finish':
      fold.finishReason = (data.reason as StopReason | undefined) ?? null;
      return;
    default:
      return;
  }
}

function recordDecision(fold: JournalFold, data: Record<string, unknown>): void {
  const { id, decision, by, at, reason } = data;
  if (typeof id !== 'string' || (decision !== 'approved' && decision !== 'denied' && decision !== 'expired')) return;
  fold.decisions.set(id, {
    decision,
    decidedBy: String(by ?? ''),
    at: String(at ?? ''),
    ...(typeof reason === 'string' ? { reason } : {}),
  });
}
