import type { LanguageModelV4StreamPart } from '@ai-sdk/provider';
import { abortedError } from '../core/clock.ts';
import { AgencyError } from '../core/errors.ts';
import { streamCutError } from './classify-error.ts';

/** A signal that aborts when the caller's does or when `timeoutMs` passes, whichever is first. */
export type AttemptSignal = {
  signal: AbortSignal;
  timedOut(): boolean;
  dispose(): void;
  /**
   * Resolves with `promise`, or rejects as soon as `signal` aborts, so a provider that ignores its abort signal
   * cannot hang the caller.
   */
  race<T>(promise: PromiseLike<T>): Promise<T>;
};

/**
 * Creates the signal for one attempt. A `timeoutMs` of 0 or less means no timeout. `what` names the call in the
 * timeout message and is only called if the attempt times out.
 */
export function attemptSignal(timeoutMs: number, outer: AbortSignal | undefined, what: () => string): AttemptSignal {
  const controller = new AbortController();
  const { signal } = controller;
  let timedOut = false;
  // Only this function aborts the controller, so it tells pending races itself instead of each race adding an event
  // listener to the signal.
  const racers: Array<() => void> = [];
  const abort = (reason: unknown) => {
    controller.abort(reason);
    for (const notify of racers.splice(0)) notify();
  };
  let unwatch: (() => void) | undefined;
  if (outer?.aborted) controller.abort(outer.reason);
  else if (outer) unwatch = watchAbort(outer, abort);
  const timer =
    timeoutMs > 0
      ? setTimeout(() => {
          timedOut = true;
          abort(new AgencyError('model_timeout', `${what()} timed out after ${timeoutMs} ms`));
        }, timeoutMs)
      : undefined;
  // The timer alone must not keep a process alive; an open request does that.
  timer?.unref();
  return {
    signal,
    timedOut: () => timedOut,
    dispose() {
      clearTimeout(timer);
      unwatch?.();
    },
    race<T>(promise: PromiseLike<T>): Promise<T> {
      if (signal.aborted) return Promise.reject(abortedOrTimeout(signal));
      return new Promise<T>((resolve, reject) => {
        const notify = () => reject(abortedOrTimeout(signal));
        racers.push(notify);
        const settled = () => {
          const index = racers.indexOf(notify);
          if (index >= 0) racers.splice(index, 1);
        };
        Promise.resolve(promise).then(
          (value) => {
            settled();
            resolve(value);
          },
          (error: unknown) => {
            settled();
            reject(signal.aborted ? abortedOrTimeout(signal) : error);
          },
        );
      });
    },
  };
}

// A run makes one attempt per step on the same caller's signal. Adding and removing an event listener costs about
// half a microsecond, so each signal gets one listener that calls whichever attempts are watching it.
const watchers = new WeakMap<AbortSignal, Set<(reason: unknown) => void>>();

function watchAbort(signal: AbortSignal, onAbort: (reason: unknown) => void): () => void {
  let watching = watchers.get(signal);
  if (!watching) {
    const created = new Set<(reason: unknown) => void>();
    watchers.set(signal, created);
    signal.addEventListener(
      'abort',
      () => {
        watchers.delete(signal);
        for (const notify of [...created]) notify(signal.reason);
      },
      { once: true },
    );
    watching = created;
  }
  const set = watching;
  set.add(onAbort);
  return () => {
    set.delete(onAbort);
  };
}

function abortedOrTimeout(signal: AbortSignal): AgencyError {
  return AgencyError.hasCode(signal.reason, 'model_timeout') ? signal.reason : abortedError(signal);
}

/**
 * Parts that carry no content the caller could show: a stream that has sent only these can still be retried
 * invisibly. `custom` parts are provider metadata, such as Anthropic's `anthropic.message_start`; OpenAI's first
 * chunk opens a text part with an empty delta. (Once content has passed, the buffering has stopped, so an end part
 * seen here closes a part that had none.)
 */
export function isPreamble(part: LanguageModelV4StreamPart): boolean {
  switch (part.type) {
    case 'stream-start':
    case 'response-metadata':
    case 'ping':
    case 'raw':
    case 'custom':
    case 'text-start':
    case 'reasoning-start':
    case 'text-end':
    case 'reasoning-end':
      return true;
    case 'text-delta':
    case 'reasoning-delta':
      return part.delta === '';
    default:
      return false;
  }
}

/** A finish the provider made up because its stream ended without the completion signal. */
function isInterrupted(part: LanguageModelV4StreamPart): boolean {
  return part.type === 'finish' && part.finishReason.unified === 'interrupted';
}

/**
 * Reads until the first content part: failures before it can still be retried without the caller noticing. A stream
 * that ends, or finishes `interrupted`, before any content was cut short, and throws a retryable error.
 */
export async function readPreamble(
  reader: ReadableStreamDefaultReader<LanguageModelV4StreamPart>,
  guard: Pick<AttemptSignal, 'race'>,
  model: { provider: string; modelId: string },
): Promise<LanguageModelV4StreamPart[]> {
  const buffered: LanguageModelV4StreamPart[] = [];
  for (;;) {
    const { done, value } = await guard.race(reader.read()).catch(async (error: unknown) => {
      await reader.cancel(error).catch(() => {});
      throw error;
    });
    if (done) throw streamCutError(model, false);
    if (value.type === 'error' || isInterrupted(value)) {
      await reader.cancel().catch(() => {});
      throw value.type === 'error' ? value.error : streamCutError(model, false);
    }
    buffered.push(value);
    if (!isPreamble(value)) break;
  }
  return buffered;
}

/**
 * A stream that yields `buffered` and then the rest of `reader`, erroring as soon as the attempt's signal aborts,
 * and calling `onClose` once when it ends for any reason. A stream that ends without a finish, or finishes
 * `interrupted`, errors with a retryable stream-cut error instead, so a cut answer is never taken for a whole one.
 */
export function resumeStream(
  buffered: LanguageModelV4StreamPart[],
  reader: ReadableStreamDefaultReader<LanguageModelV4StreamPart>,
  guard: Pick<AttemptSignal, 'race'>,
  onClose: () => void,
  model: { provider: string; modelId: string },
): ReadableStream<LanguageModelV4StreamPart> {
  let closed = false;
  // An error part ends the answer as surely as a finish does: the consumer fails on it.
  let ended = buffered.some((part) => part.type === 'finish' || part.type === 'error');
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
        const { done, value } = await guard.race(reader.read());
        if (done && !ended) throw streamCutError(model, true);
        if (done) {
          close();
          controller.close();
          return;
        }
        if (isInterrupted(value)) throw streamCutError(model, true);
        if (value.type === 'finish' || value.type === 'error') ended = true;
        controller.enqueue(value);
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
