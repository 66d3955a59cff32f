import type {
  LanguageModelV4,
  LanguageModelV4CallOptions,
  LanguageModelV4GenerateResult,
  LanguageModelV4StreamPart,
  LanguageModelV4StreamResult,
} from '@ai-sdk/provider';
import { sleep as defaultSleep } from '../core/clock.ts';
import { AgencyError } from '../core/errors.ts';
import { traceGenerate, traceStream } from '../obs/model-span.ts';
import type { ModelCatalog } from '../core/model-catalog.ts';
import { type AttemptSignal, attemptSignal, readPreamble, resumeStream } from './attempt.ts';
import { capabilitiesOf, capableModels, type ModelChain, modelName, needsOf } from './capabilities.ts';
import { toModelError } from './classify-error.ts';
import {
  type CallPolicy,
  nextStep,
  resolvePolicy,
  type RetryEvent,
  type Retrying,
  retryEvent,
  withAttempts,
} from './retry-rules.ts';

/** A model request: the AI SDK call options without the abort signal, which the caller manages. */
export type ModelRequest = Omit<LanguageModelV4CallOptions, 'abortSignal'>;

export type { CallPolicy, RetryEvent } from './retry-rules.ts';

/** Options for one call. */
export type CallOptions = {
  signal?: AbortSignal;
  onRetry?: (event: RetryEvent) => void;
};

/** Options for {@link createModelCaller}. */
export type ModelCallerOptions = CallPolicy & {
  /** Capabilities and prices of known models. */
  catalog?: ModelCatalog | undefined;
  /** Waits between attempts; inject one in tests. */
  sleep?: ((ms: number, signal?: AbortSignal) => Promise<void>) | undefined;
  /** Jitter source in [0, 1). @default Math.random */
  random?: (() => number) | undefined;
  /** The wall clock, for the time a `retry-after` names. @default Date.now */
  now?: (() => number) | undefined;
};

/** The outcome of a call: which model answered, after how many attempts. */
export type CallOutcome = { model: LanguageModelV4; attempts: number; retries: RetryEvent[] };

/** Calls a model, or a fallback chain, with timeouts, retries and capability selection. */
export type ModelCaller = {
  generate(
    request: ModelRequest,
    options?: CallOptions,
  ): Promise<CallOutcome & { result: LanguageModelV4GenerateResult }>;
  stream(
    request: ModelRequest,
    options?: CallOptions,
  ): Promise<
    CallOutcome & {
      stream: ReadableStream<LanguageModelV4StreamPart>;
      response?: LanguageModelV4StreamResult['response'];
    }
  >;
};

/**
 * Wraps a model, or a fallback chain, in timeouts and retries. Rate limits and transient failures retry with
 * exponential backoff and jitter, honouring `retry-after`. A model that keeps failing hands over to the next model in
 * the chain that has the capabilities the request needs. A stream is retried only while it has sent no content.
 *
 * @example
 * const caller = createModelCaller([resolveModel('openai:gpt-4o'), resolveModel('anthropic:claude-sonnet-4-5')]);
 * const { result } = await caller.generate({ prompt });
 */
export function createModelCaller(chain: ModelChain, options: ModelCallerOptions = {}): ModelCaller {
  const retrying: Retrying = {
    policy: resolvePolicy(options),
    sleep: options.sleep ?? defaultSleep,
    random: options.random ?? Math.random,
    now: options.now ?? Date.now,
  };
  const modelsFor = createModelSelector(chain, options.catalog);
  return {
    generate: async (request, call = {}) => {
      const models = modelsFor(request);
      return traceGenerate(request, models[0], () => callChain(models, call, retrying, generateAttempt(request)));
    },
    stream: async (request, call = {}) => {
      const models = modelsFor(request);
      return traceStream(request, models[0], () => callChain(models, call, retrying, streamAttempt(request)));
    },
  };
}

/** One attempt at a call on one model. */
type Attempt<T> = (model: LanguageModelV4, guard: AttemptSignal) => Promise<T>;

/** A call in progress: what it runs on each attempt and what its attempts have done so far. */
type CallRun<T> = {
  call: CallOptions;
  retrying: Retrying;
  once: Attempt<T>;
  attempts: number;
  retries: RetryEvent[];
  lastError: AgencyError | undefined;
};

// What a request needs is found by walking its whole prompt, which grows with every step of a run. A chain whose
// models declare no limits (custom and replayed models have no catalog row) can serve any request, so the walk is
// skipped for it. Models' ids are fixed, so the chain is checked once.
function createModelSelector(
  chain: ModelChain,
  catalog: ModelCatalog | undefined,
): (request: ModelRequest) => LanguageModelV4[] {
  let servesAnything: LanguageModelV4[] | undefined;
  return (request) => {
    servesAnything ??= unlimitedModels(chain, catalog);
    return servesAnything.length > 0 ? servesAnything : capableModels(chain, needsOf(request), catalog);
  };
}

/** Walks the fallback chain until a model answers; throws the last error, with every attempt, when none does. */
async function callChain<T>(
  models: LanguageModelV4[],
  call: CallOptions,
  retrying: Retrying,
  once: Attempt<T>,
): Promise<T & CallOutcome> {
  const run: CallRun<T> = { call, retrying, once, attempts: 0, retries: [], lastError: undefined };
  for (let index = 0; index < models.length; index++) {
    const model = models[index] as LanguageModelV4;
    const answered = await callModel(run, model, models[index + 1]);
    if (answered) return { ...answered.value, model, attempts: run.attempts, retries: run.retries };
  }
  throw withAttempts(run.lastError, run.attempts, run.retries);
}

/**
 * Tries one model until it answers or gives up on it. Resolves undefined when the call should move on to `fallback`
 * (or fail, when there is none); throws at once when the call is aborted.
 */
async function callModel<T>(
  run: CallRun<T>,
  model: LanguageModelV4,
  fallback: LanguageModelV4 | undefined,
): Promise<{ value: T } | undefined> {
  const { call, retrying, once } = run;
  const what = () => `${modelName(model)} call`;
  for (let attempt = 1; attempt <= retrying.policy.maxRetries + 1; attempt++) {
    run.attempts++;
    const guard = attemptSignal(retrying.policy.timeoutMs, call.signal, what);
    try {
      return { value: await once(model, guard) };
    } catch (thrown) {
      guard.dispose();
      const error = toModelError(thrown, model, retrying.now());
      if (call.signal?.aborted || error.code === 'aborted') throw error;
      const step = nextStep(error, attempt, retrying, fallback !== undefined);
      run.lastError = step.error;
      const next = step.retry ? model : fallback;
      if (!next) return undefined;
      const event = retryEvent(error, model, attempt, step.delayMs, next);
      run.retries.push(event);
      call.onRetry?.(event);
      if (step.delayMs > 0) await retrying.sleep(step.delayMs, call.signal);
      if (!step.retry) return undefined;
    }
  }
  return undefined;
}

function generateAttempt(request: ModelRequest): Attempt<{ result: LanguageModelV4GenerateResult }> {
  return async (model, guard) => {
    try {
      return { result: await guard.race(model.doGenerate({ ...request, abortSignal: guard.signal })) };
    } finally {
      guard.dispose();
    }
  };
}

type OpenedStream = {
  stream: ReadableStream<LanguageModelV4StreamPart>;
  response?: LanguageModelV4StreamResult['response'];
};

function streamAttempt(request: ModelRequest): Attempt<OpenedStream> {
  return async (model, guard) => {
    const opened = await guard.race(model.doStream({ ...request, abortSignal: guard.signal }));
    const reader = opened.stream.getReader();
    const buffered = await readPreamble(reader, guard, model);
    return {
      stream: resumeStream(buffered, reader, guard, guard.dispose, model),
      response: opened.response,
    };
  };
}

/** The chain's models when none of them declares a capability it could lack; otherwise none. */
function unlimitedModels(chain: ModelChain, catalog: ModelCatalog | undefined): LanguageModelV4[] {
  const entries = Array.isArray(chain) ? chain : [chain as LanguageModelV4];
  const models: LanguageModelV4[] = [];
  for (const entry of entries) {
    const { model, capabilities } = capabilitiesOf(entry, catalog);
    const { tools, images, contextTokens } = capabilities;
    if (tools === false || images === false || contextTokens !== undefined) return [];
    models.push(model);
  }
  return models;
}
