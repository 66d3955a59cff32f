import { AgencyError } from '../../core/errors.ts';
import type { ApiErrorDetails } from '../../api/answer-errors.ts';

// Refusals of the worker a client can act on: they keep their code (agent_busy 409, validation_error 400, …).
const PASSED_ON = new Set(['agent_busy', 'invalid_argument', 'task_not_found', 'task_active', 'task_finished']);
// What a refusal's details may carry to the client: the field, the task and its state. Never the worker's headers.
const KEPT = ['field', 'current_task', 'task_id', 'final_state', 'state'] as const;

/**
 * What a failed call to worker `name` is answered with. The worker's own refusals keep their code; a worker that is
 * starting or stopping is `worker_unavailable` (503); one that did not answer in time is `timeout` (504); one that
 * did not answer at all, answered outside its API, failed on its side (5xx) or refused the server's credentials is
 * `worker_failed` (502). A 401 of a worker never becomes the client's own 401.
 */
export function fleetError(error: unknown, name: string): unknown {
  if (!AgencyError.isInstance(error)) return error;
  const from = (error.details ?? {}) as ApiErrorDetails;
  if (typeof from.url !== 'string' || error.code === 'aborted') return error;
  const details: Record<string, unknown> = { worker: name, url: from.url };
  for (const key of KEPT) if (from[key] !== undefined) details[key] = from[key];
  const status = from.status;
  if (PASSED_ON.has(error.code))
    return new AgencyError(error.code, error.message, { retryable: error.retryable, details, cause: error });
  if (error.code === 'timeout')
    return new AgencyError('timeout', `Worker "${name}" did not answer in time: ${error.message}`, {
      details,
      cause: error,
    });
  if (status === 503)
    return new AgencyError('worker_unavailable', `Worker "${name}" is starting or stopping: ${error.message}`, {
      details,
      cause: error,
    });
  const why =
    status === 401 || status === 403
      ? `refused the server's request (${status}): a worker bound beyond loopback needs its token file, agents/<name>/token under the server's data root`
      : status === undefined
        ? `did not answer: ${error.message}`
        : `failed (${error.message})`;
  return new AgencyError('worker_failed', `Worker "${name}" ${why}`, { details, cause: error });
}

/** Runs a call to worker `name`, answering its failure as {@link fleetError} says. */
export async function callWorker<T>(name: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    throw fleetError(error, name);
  }
}
