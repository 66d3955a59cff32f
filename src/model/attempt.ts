import type { LanguageModelV4StreamPart } from '@ai-sdk/provider';
import { abortedError } from '../core/clock.ts';
import { AgencyError } from '../core/errors.ts';

/** A signal that aborts when the caller's does or when `timeoutMs` passes, whichever is first. */
export type AttemptSignal = { signal: AbortSignal; timedOut(): boolean; dispose(): void };

/** Creates the signal for one attempt. A `timeoutMs` of 0 or less means no timeout. */
export function attemptSignal(timeoutMs: number, outer: AbortSignal | undefined, what: string): AttemptSignal {
  const controller = new AbortController();
  let timedOut = false;
  const onAbort = () => controller.abort(outer?.reason);
  if (outer?.aborted) controller.abort(outer.reason);
  else outer?.addEventListener('abort', onAbort, { once: true });
  const timer =
    timeoutMs > 0
      ? setTimeout(() => {
          timedOut = true;
          controller.abort(new AgencyError('model_timeout', `${what} timed out after ${timeoutMs} ms`));
        }, timeoutMs)
      : undefined;
  // The timer alone must not keep a process alive; an open request does that.
  timer?.unref();
  return {
    signal: controller.signal,
    timedOut: () => timedOut,
    dispose() {
      clearTimeout(timer);
      outer?.removeEventListener('abort', onAbort);
    },
  };
}

/**
 * Resolves with `promise`, or rejects as soon as `signal` aborts, so a provider that ignores its abort signal
 * cannot hang the caller.
 */
export function raceAbort<T>(promise: PromiseLike<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(abortedOrTimeout(signal));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(abortedOrTimeout(signal));
    signal.addEventListener('abort', onAbort, { once: true });
    Promise.resolve(promise).then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(signal.aborted ? abortedOrTimeout(signal) : error);
      },
    );
  });
}

function abortedOrTimeout(signal: AbortSignal): AgencyError {
  return AgencyError.hasCode(signal.reason, 'model_timeout') ? signal.reason : abortedError(signal);
}

/** Parts that carry no content: a stream that has sent only these can still be retried invisibly. */
export function isPreamble(part: LanguageModelV4StreamPart): boolean {
  return (
    part.type === 'stream-start' || part.type === 'response-metadata' || part.type === 'ping' || part.type === 'raw'
  );
}

/**
 * A stream that yields `buffered` and then the rest of `reader`, erroring as soon as `signal` aborts, and calling
 * `onClose` once when it ends for any reason.
 */
export function resumeStream(
  buffered: LanguageModelV4StreamPart[],
  reader: ReadableStreamDefaultReader<LanguageModelV4StreamPart>,
  signal: AbortSignal,
  onClose: () => void,
): ReadableStream<LanguageModelV4StreamPart> {
  let closed = false;
  const close = () => {
    if (closed) return;
    closed = true;
    onClose();
  };
  return new ReadableStream<LanguageModelV4StreamPart>({
    async pull(controller) {
      const next = buffered.shift();
      if (next) {
        controller.enqueue(next);
        return;
      }
      try {
        const { done, value } = await raceAbort(reader.read(), signal);
        if (done) {
          close();
          controller.close();
        } else {
          controller.enqueue(value);
        }
      } catch (error) {
        close();
        reader.cancel(error).catch(() => {});
        controller.error(error);
      }
    },
    async cancel(reason) {
      close();
      await reader.cancel(reason);
    },
  });
}
