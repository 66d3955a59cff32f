import { AgencyError, errorMessage } from '../core/errors.ts';
import type { MemoryManager } from '../memory/memory-manager.ts';
import type { StopReason } from './contracts/state.ts';
import type { Loop } from './loop.ts';
import { loopSignatureOf } from './loop-signature.ts';
import { runDeliverables } from './deliverables.ts';
import { appendNote, finishNote } from './progress-files.ts';
import { type DoTaskResult, stepReports } from './result.ts';
import type { Session } from './session.ts';

/** How a run ended, before it is written down. */
export type RunEnding = {
  reason: StopReason;
  output: string;
  verified?: boolean;
  error?: unknown;
  /** Why a stop happened, in a sentence (`Plan v1 was denied by ana`), for the finish frame. */
  detail?: string;
  memory?: MemoryManager | undefined;
};

/**
 * Writes a run's ending: an `error` frame for a failure, the `finish` frame with the reason and the budgets
 * remaining, the final `state.json`, learnings to memory on success, and a line in `notes.md`. Returns the full
 * result with the deliverables, their sizes and SHA-256; entries of `artifacts/` that are not delivered (links,
 * special files, files over the limits) are journaled as `warning` frames and listed in `warnings`. If the disk
 * fails while writing the ending, nothing more is written and the result still comes back, saying so in its warnings.
 */
export async function finalizeRun(session: Session, loop: Loop, ending: RunEnding): Promise<DoTaskResult> {
  const { paths, spec } = session;
  const { deliverables } = await runDeliverables(session).catch((cause: unknown) => {
    session.warn(`The deliverables could not be listed: ${errorMessage(cause)}`);
    return { deliverables: [] };
  });
  const error = ending.error === undefined ? undefined : durabilityError(AgencyError.from(ending.error));
  try {
    await recordEnding(session, ending, error, deliverables.length);
  } catch (cause) {
    session.warnings.push(`The run's ending could not be written to progress/: ${errorMessage(cause)}`);
  }
  const { frames } = await session.journal.read().catch(() => ({ frames: [] }));
  return {
    taskId: spec.task_id,
    loopName: loop.name,
    loopVersion: loop.version,
    loopSignature: loopSignatureOf(loop, spec),
    progressDir: paths.progress,
    finishReason: ending.reason,
    usage: session.budgets.usage,
    outputText: ending.output,
    deliverables,
    ...(ending.verified === undefined ? {} : { verified: ending.verified }),
    planSig: session.state.approved_plan_sig ?? session.state.plan_sig,
    steps: stepReports(frames),
    warnings: [...session.warnings],
    ...(error ? { error: { code: error.code, message: error.message } } : {}),
    startedAt: session.state.started_at,
    completedAt: new Date(session.now()).toISOString(),
  };
}

// A failed write under progress/ means the run's records are not durable, whichever file it was.
function durabilityError(error: AgencyError): AgencyError {
  if (error.code !== 'file_write_failed') return error;
  return new AgencyError('journal_not_durable', `The run's records could not be written durably: ${error.message}`, {
    cause: error,
  });
}

async function recordEnding(
  session: Session,
  ending: RunEnding,
  error: AgencyError | undefined,
  deliverables: number,
): Promise<void> {
  const { paths, spec } = session;
  if (error)
    session.emit({ type: 'error', message: error.message, error: { code: error.code, message: errorMessage(error) } });
  session.emit({
    type: 'finish',
    message: `Finished: ${ending.reason}${ending.detail ? ` (${session.redact(ending.detail)})` : ''}`,
    budgets_remaining: session.budgets.remaining(),
    data: {
      reason: ending.reason,
      deliverables,
      ...(ending.verified === undefined ? {} : { verified: ending.verified }),
      output: shortened(session.redact(ending.output)),
      elapsed_ms: Math.round(session.budgets.elapsedMs()),
    },
  });
  const status =
    ending.reason === 'completed'
      ? 'completed'
      : ending.reason === 'error' || ending.reason === 'verify.failed'
        ? 'failed'
        : 'stopped';
  session.state.finish_reason = ending.reason;
  await session.boundary({ phase: 'done', status });
  await session.settle();
  if (ending.reason === 'completed' && ending.memory) {
    await ending.memory
      .writeLearnings({ summary: ending.output, taskId: spec.task_id, sources: [] })
      .catch((cause: unknown) => session.warn(`Could not write learnings to memory: ${errorMessage(cause)}`));
  }
  await appendNote(session.files, paths, finishNote(ending.reason, error));
}

// Redacted before it is cut, so no part of a secret is left at the cut.
function shortened(output: string): string {
  return output.length > 4000 ? `${output.slice(0, 3999)}…` : output;
}
