import type {
  LanguageModelV4,
  LanguageModelV4CallOptions,
  LanguageModelV4GenerateResult,
  LanguageModelV4StreamPart,
  LanguageModelV4StreamResult,
} from '@ai-sdk/provider';
import { sleep as defaultSleep } from '../core/clock.ts';
import { AgencyError } from '../core/errors.ts';
import type { ModelCatalog } from '../core/model-catalog.ts';
import { type AttemptSignal, attemptSignal, readPreamble, resumeStream } from './attempt.ts';
import { capabilitiesOf, capableModels, type ModelChain, modelName, needsOf } from './capabilities.ts';
import { type ModelErrorClass, toModelError } from './classify-error.ts';

/** A model request: the AI SDK call options without the abort signal, which the caller manages. */
export type ModelRequest = Omit<LanguageModelV4CallOptions, 'abortSignal'>;

/** Timeouts and retries for model calls. */
export type CallPolicy = {
  /** Per attempt, including reading the whole stream; 0 disables. @default 120000 */
  timeoutMs?: number;
  /** Retries per model after the first attempt, for rate limits and transient failures. @default 2 */
  maxRetries?: number;
  /** The first backoff delay; each retry doubles it. @default 1000 */
  initialDelayMs?: number;
  /** The largest backoff delay. @default 30000 */
  maxDelayMs?: number;
  /** The longest `retry-after` we wait; a longer request moves on to the next model. @default 60000 */
  maxRetryAfterMs?: number;
};

/** A retry, or a move to the next model in the chain. */
export type RetryEvent = {
  model: string;
  attempt: number;
  errorClass: ModelErrorClass | 'timeout';
  code: string;
  message: string;
  /** How long we wait before the next attempt. */
  delayMs: number;
  /** Set when the next attempt goes to another model in the chain. */
  fallbackTo?: string;
};

/** Options for one call. */
export type CallOptions = {
  signal?: AbortSignal;
  onRetry?: (event: RetryEvent) => void;
};

/** Options for {@link createModelCaller}. */
export type ModelCallerOptions = CallPolicy & {
  /** Capabilities and prices of known models. */
  catalog?: ModelCatalog;
  /** Waits between attempts; inject one in tests. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Jitter source in [0, 1). @default Math.random */
  random?: () => number;
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
  };
  const modelsFor = createModelSelector(chain, options.catalog);
  return {
    generate: (request, call = {}) => callChain(() => modelsFor(request), call, retrying, generateAttempt(request)),
    stream: (request, call = {}) => callChain(() => modelsFor(request), call, retrying, streamAttempt(request)),
  };
}

/** The policy with its defaults filled in, and what waits between attempts. */
type Retrying = {
  policy: Required<CallPolicy>;
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  random: () => number;
};

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

function resolvePolicy(options: CallPolicy): Required<CallPolicy> {
  return {
    timeoutMs: options.timeoutMs ?? 120_000,
    maxRetries: options.maxRetries ?? 2,
    initialDelayMs: options.initialDelayMs ?? 1000,
    maxDelayMs: options.maxDelayMs ?? 30_000,
    maxRetryAfterMs: options.maxRetryAfterMs ?? 60_000,
  };
}

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
  modelsFor: () => LanguageModelV4[],
  call: CallOptions,
  retrying: Retrying,
  once: Attempt<T>,
): Promise<T & CallOutcome> {
  const models = modelsFor();
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
      const error = toModelError(thrown, model);
      if (call.signal?.aborted || error.code === 'aborted') throw error;
      run.lastError = error;
      const { retry, delayMs } = nextStep(error, attempt, retrying);
      const next = retry ? model : fallback;
      if (!next) return undefined;
      const event = retryEvent(error, model, attempt, delayMs, next);
      run.retries.push(event);
      call.onRetry?.(event);
      if (delayMs > 0) await retrying.sleep(delayMs, call.signal);
      if (!retry) return undefined;
    }
  }
  return undefined;
}

/**
 * Whether a failed attempt is retried on the same model, and after how long: `retry-after` when the provider sent
 * one short enough to wait for, otherwise exponential backoff with jitter. A move to the next model waits for nothing.
 */
function nextStep(error: AgencyError, attempt: number, retrying: Retrying): { retry: boolean; delayMs: number } {
  const { policy } = retrying;
  const retryAfterMs = error.details?.retryAfterMs as number | undefined;
  const retry = error.retryable && attempt <= policy.maxRetries && (retryAfterMs ?? 0) <= policy.maxRetryAfterMs;
  return { retry, delayMs: retry ? (retryAfterMs ?? backoff(attempt, retrying)) : 0 };
}

function backoff(attempt: number, { policy, random }: Retrying): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.initialDelayMs * 2 ** (attempt - 1));
  return Math.round(ceiling / 2 + random() * (ceiling / 2));
}

function retryEvent(
  error: AgencyError,
  model: LanguageModelV4,
  attempt: number,
  delayMs: number,
  next: LanguageModelV4,
): RetryEvent {
  return {
    model: modelName(model),
    attempt,
    errorClass: error.code === 'model_timeout' ? 'timeout' : errorClassOf(error),
    code: error.code,
    message: error.message,
    delayMs,
    ...(next === model ? {} : { fallbackTo: modelName(next) }),
  };
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
      ...(opened.response ? { response: opened.response } : {}),
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

function errorClassOf(error: AgencyError): ModelErrorClass {
  if (error.code === 'model_rate_limit') return 'rate_limit';
  return error.retryable ? 'retryable' : 'fatal';
}

function withAttempts(error: AgencyError | undefined, attempts: number, retries: RetryEvent[]): AgencyError {
  const base = error ?? new AgencyError('internal', 'The model call failed without an error');
  return new AgencyError(base.code, attempts > 1 ? `${base.message} (after ${attempts} attempts)` : base.message, {
    cause: base.cause ?? base,
    retryable: base.retryable,
    details: { ...base.details, attempts, retries },
  });
}
