// A governed run's journal (docs/events.md), mapped onto executor events as the frames are appended.
import type { TaskErrorType } from '../../api/worker-schemas.ts';
import { AgencyError } from '../../../core/errors.ts';
import type { EventFrame } from '../../../task/contracts/events.ts';
import { followJournal } from '../../../task/journal/follow-journal.ts';
import { readJournal } from '../../../task/journal/read-journal.ts';
import { classifyErrorText, type ParsedRun } from '../cli/cli-result.ts';
import type { ExecutorEvent } from '../executor.ts';

/** What the journal said once the run ended: {@link ParsedRun} plus the run's stop reason. */
export type BuiltinRun = ParsedRun & { finishReason?: string };

// agency's error codes (src/core/error-codes.ts) and the error type a worker reports for each.
const ERROR_TYPES: Partial<Record<string, TaskErrorType>> = {
  model_rate_limit: 'rate_limit',
  missing_api_key: 'invalid_api_key',
  model_retryable: 'network',
  model_timeout: 'network',
  network_failed: 'network',
  sandbox_unavailable: 'sandbox_error',
  sandbox_failed: 'sandbox_error',
};

/** Maps frames onto events; `finish` says what the run came to. */
export function createJournalMapper(onEvent: (event: ExecutorEvent) => void, root: string) {
  const usage = { input: 0, output: 0, cost: 0, priced: false, seen: false };
  let lastSeq = 0;
  let output = '';
  let finishReason: string | undefined;
  let failure: { code: string; message: string } | undefined;
  const handle = (frame: EventFrame) => {
    if (frame.seq <= lastSeq) return;
    lastSeq = frame.seq;
    const data = frame.data ?? {};
    const tool = String(data['tool'] ?? 'unknown');
    const id = typeof data['tool_call_id'] === 'string' ? { id: data['tool_call_id'] } : {};
    if (frame.type === 'tool.call') onEvent({ type: 'tool.call', tool, input: data['args'], ...id });
    else if (frame.type === 'tool.result') onEvent({ type: 'tool.result', tool, ok: data['ok'] === true, ...id });
    else if (frame.type === 'usage.delta' && frame.usage_delta) {
      const delta = frame.usage_delta;
      Object.assign(usage, {
        seen: true,
        input: usage.input + delta.input_tokens,
        output: usage.output + delta.output_tokens,
      });
      if (delta.cost_usd !== null) Object.assign(usage, { priced: true, cost: usage.cost + delta.cost_usd });
      onEvent({
        type: 'usage',
        input: usage.input,
        output: usage.output,
        ...(usage.priced ? { costUsd: usage.cost } : {}),
      });
    } else if (frame.type === 'approval.requested') {
      const what = data['type'] === 'plan' ? 'the plan' : `a call of ${tool}`;
      const request = String(data['id']);
      onEvent({ type: 'warning', message: `Approval needed for ${what}: agency approve ${root} ${request}` });
    } else if (WARNED.has(frame.type)) onEvent({ type: 'warning', message: frame.message ?? frame.type });
    else if (frame.type === 'error' && frame.error) failure = frame.error;
    else if (frame.type === 'finish') {
      finishReason = String(data['reason']);
      output = typeof data['output'] === 'string' ? data['output'] : '';
      if (output !== '') onEvent({ type: 'text', text: output });
    }
  };
  const finish = (): BuiltinRun => ({
    output,
    ...(usage.seen ? { usage: { input: usage.input, output: usage.output } } : {}),
    ...(usage.priced ? { costUsd: usage.cost } : {}),
    ...(finishReason ? { finishReason } : {}),
    ...errorOf(finishReason, failure),
  });
  return { handle, finish, lastSeq: () => lastSeq };
}

// Frames a worker's lifecycle log should show: what held the run back.
const WARNED = new Set<string>([
  'warning',
  'tool.blocked',
  'policy.blocked',
  'budget.hit',
  'verify.fail',
  'approval.invalid',
]);

function errorOf(
  reason: string | undefined,
  failure: { code: string; message: string } | undefined,
): Pick<BuiltinRun, 'error'> {
  if (reason === undefined || reason === 'completed') return {};
  if (failure) {
    const type = ERROR_TYPES[failure.code] ?? classifyErrorText(failure.message) ?? 'executor_error';
    return { error: { type, message: `${failure.code}: ${failure.message}` } };
  }
  return { error: { type: 'executor_error', message: `The governed run finished with ${reason}.` } };
}

/**
 * Follows the journal into `handle` until `signal` aborts, then reads it to its end, so no frame appended just
 * before the run exited is lost. A journal that cannot be read is reported as a warning.
 */
export async function followRun(
  file: string,
  mapper: ReturnType<typeof createJournalMapper>,
  signal: AbortSignal,
  onEvent: (event: ExecutorEvent) => void,
): Promise<void> {
  try {
    for await (const frame of followJournal(file, { signal, pollIntervalMs: 100 })) mapper.handle(frame);
    const { frames } = await readJournal(file).catch((error: unknown) => {
      if (AgencyError.hasCode(error, 'path_not_found')) return { frames: [] }; // the run never started
      throw error;
    });
    for (const frame of frames) mapper.handle(frame);
  } catch (error) {
    onEvent({ type: 'warning', message: `The run's journal could not be read: ${String(error)}` });
  }
}
