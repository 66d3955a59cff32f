import { join } from 'node:path';
import type { LLMAgent } from '../agent/llm-agent.ts';
import { type StructuredOutputOptions, structuredOptionsOf } from '../agent/structured-output.ts';
import { answered } from '../agent/result.ts';
import type { AgentEvent, AgentResult } from '../agent/types.ts';
import { canonicalDigest } from '../core/canonical-json.ts';
import { AgencyError } from '../core/errors.ts';
import type { Message } from '../core/messages.ts';
import type { ModelPrice } from '../core/model-catalog.ts';
import { usageToJson } from './budgets.ts';
import type { StopReason } from './contracts/state.ts';
import { tokensForChars } from '../core/tokens.ts';
import { isRunStop, type RunStop, runStop } from './run-stop.ts';
import type { Session } from './session.ts';
import type { StepGate } from './tool-gate.ts';

/**
 * What a governed agent step needs. With a `schema`, the step's answer is a structured one (see `LLMAgent`); an
 * answer still invalid after its repair turns does not fail the step: the phase reads the output and decides.
 */
export type AgentStepOptions = Omit<StepGate, 'step' | 'beforeModelCall'> & {
  /** The ask: the last user message. */
  input: string;
  /** Messages placed before the ask: persona, pinned memory, task context, recalled memory, seeded history. */
  context?: Message[];
  /** Caps this step's tool iterations (a time box); the model is then asked for its answer. */
  maxIterations?: number;
  /** The prompt templates (`id@version`) the ask and context were rendered from; journaled with each model call. */
  promptRefs?: readonly string[];
} & Partial<StructuredOutputOptions>;

/** The run-wide pieces an agent step uses. */
export type AgentStepHost = {
  session: Session;
  agent: LLMAgent;
  /** The gate the run's tool-gate processor consults; set for the duration of a step. */
  setGate(gate: StepGate | undefined): void;
  /** The rates the next call's cost is estimated at before it is made: the dearest model of the chain. */
  price?: ModelPrice | undefined;
  maxOutputTokens: number;
  /** The templates every step's context comes from (the persona's); each step adds its own. */
  promptRefs: readonly string[];
};

/**
 * Runs one agent execution as a durable step. The latest checkpoint goes to `steps/<id>/checkpoint.json` whenever
 * the journal commits within the step, vouched for by its digest; a step found with a checkpoint the journal knows
 * continues from it.
 * Budgets are checked before each model call (on an estimate) and after it (on real usage); a budget hit, a STOP
 * file or `stop()` end the step at once with a RunStop.
 */
export async function runAgentStep(
  host: AgentStepHost,
  stepId: string,
  options: AgentStepOptions,
): Promise<AgentResult> {
  const { session, agent } = host;
  const dir = session.paths.step(stepId);
  const checkpointFile = join(dir, 'checkpoint.json');
  const controller = new AbortController();
  const signal = AbortSignal.any([session.signal, controller.signal]);
  let pendingStop: RunStop | undefined;
  const stop = (reason: StopReason, message: string) => {
    if (pendingStop) return;
    pendingStop = runStop(reason, message);
    session.emit({
      type: 'budget.hit',
      step: stepId,
      message,
      data: { reason },
      budgets_remaining: session.budgets.remaining(),
    });
    controller.abort(pendingStop);
  };
  const { price } = host;
  host.setGate({
    ...options,
    step: stepId,
    beforeModelCall: (messages) => {
      const tokens = historyTokens(messages) + host.maxOutputTokens;
      const costUsd = price ? (tokens * price.input) / 1_000_000 : undefined;
      const hit = session.budgets.checkBeforeCall({ tokens, costUsd });
      if (hit)
        stop(
          hit,
          `Budget ${hit} would be exceeded by the next model call (about ${tokens} tokens); stopping before it`,
        );
    },
  });

  const executeOptions = {
    signal,
    ...structuredOptionsOf(options),
    maxIterations: options.maxIterations,
    promptRefs: [...host.promptRefs, ...(options.promptRefs ?? [])],
    onEvent: (event: AgentEvent) => onAgentEvent(session, stepId, options.phase, event, stop),
    onCheckpoint: async (checkpoint: unknown) => {
      staged = checkpoint;
      session.update({ phase: options.phase, last_step_id: stepId });
      try {
        await session.checkStop();
      } catch (error) {
        if (!isRunStop(error)) throw error;
        pendingStop ??= error;
        controller.abort(error);
      }
    },
  };
  // The latest checkpoint is written when the journal is about to commit within the step (before a side-effecting
  // tool, an approval wait): then the journal vouches for it. One never followed by a commit would not be vouched
  // for after a power loss, and the step's end makes it useless, so it is not written at all.
  let staged: unknown;
  const unhook = session.beforeCommit(async () => {
    if (staged === undefined) return;
    const checkpoint = staged;
    staged = undefined;
    await writeCheckpoint(session, stepId, checkpointFile, checkpoint);
  });
  let result: AgentResult;
  try {
    const checkpoint = await readCheckpoint(session, stepId, checkpointFile);
    result = checkpoint
      ? await agent.resumeSerialized(checkpoint, undefined, executeOptions)
      : await agent.execute({ input: options.input }, { ...executeOptions, history: options.context ?? [] });
  } finally {
    unhook();
    host.setGate(undefined);
  }
  if (pendingStop) throw pendingStop;
  if (session.stopReason) throw runStop(session.stopReason);
  if (result.finishReason === 'aborted' || session.signal.aborted) throw runStop('cancelled', 'The run was cancelled');
  if (!answered(result) && result.error?.code !== 'structured_output_invalid') {
    throw new AgencyError(
      result.error?.code ?? 'internal',
      `Step ${stepId} failed: ${result.error?.message ?? 'unknown error'}`,
    );
  }
  return result;
}

// The journal vouches for each checkpoint by its digest: a resumed step continues only from a checkpoint the journal
// knows. The file is a cache and is not fsynced (one lost or not vouched for means the step starts over, its
// journaled tool calls answered from the journal).
async function writeCheckpoint(session: Session, stepId: string, file: string, checkpoint: unknown): Promise<void> {
  const redacted = session.redact(checkpoint);
  session.emit({ type: 'step.checkpoint', step: stepId, data: { digest: canonicalDigest(redacted) } });
  await session.files.write(file, JSON.stringify(redacted));
}

// A checkpoint the journal does not vouch for (written after the last durable frame, or edited since) is set aside:
// the step starts over, and the tool calls it already made are answered from the journal.
async function readCheckpoint(session: Session, stepId: string, file: string): Promise<unknown> {
  const text = await session.files.readText(file).catch(() => undefined);
  if (text === undefined) return undefined;
  let checkpoint: unknown;
  try {
    checkpoint = JSON.parse(text);
  } catch {
    checkpoint = undefined;
  }
  const known = session.fold.checkpoints.get(stepId) ?? [];
  if (checkpoint !== undefined && known.includes(canonicalDigest(checkpoint))) return checkpoint;
  session.warn(`${file} does not match a checkpoint in the journal; step ${stepId} starts over`);
  return undefined;
}

function onAgentEvent(
  session: Session,
  step: string,
  phase: string,
  event: AgentEvent,
  stop: (reason: StopReason, message: string) => void,
): void {
  if (event.type === 'iteration-finish') {
    const hit = session.budgets.recordCall(event.usage, event.toolCalls > 0);
    session.emit({
      type: 'usage.delta',
      step,
      step_kind: phase,
      message: `model call: ${event.usage.totalTokens} tokens${event.usage.costUsd === undefined ? '' : `, $${event.usage.costUsd.toFixed(6)}`}`,
      usage_delta: usageToJson(event.usage),
      budgets_remaining: session.budgets.remaining(),
      data: {
        tool_calls: event.toolCalls,
        finish_reason: event.finishReason,
        ...(event.prompts ? { prompts: event.prompts } : {}),
        elapsed_ms: Math.round(session.budgets.elapsedMs()),
      },
    });
    if (hit) stop(hit, `Budget ${hit} is spent after this model call`);
  } else if (event.type === 'warning') {
    session.warn(event.message);
  } else if (event.type === 'retry') {
    session.emit({
      type: 'warning',
      step,
      message: `Model call retried: ${event.retry.message}`,
      data: { retry: event.retry },
    });
  }
}

// The history as it would be serialized, counted without building the whole string.
function historyTokens(messages: readonly Message[]): number {
  let chars = 0;
  for (const message of messages) chars += JSON.stringify(message.content).length;
  return tokensForChars(chars);
}
