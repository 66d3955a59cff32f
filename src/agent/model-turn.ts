import type { LanguageModelV4, LanguageModelV4FinishReason, LanguageModelV4Usage } from '@ai-sdk/provider';
import type { AssistantMessage } from '../core/messages.ts';
import { contentToAssistantMessage } from '../core/messages-v4-content.ts';
import type { ModelCatalog } from '../core/model-catalog.ts';
import { type Usage, usageFromV4 } from '../core/usage.ts';
import type { ModelCaller, ModelRequest, RetryEvent } from '../model/call-model.ts';
import { toModelError } from '../model/classify-error.ts';
import { createContentCollector } from '../model/stream-convert.ts';
import { countCost } from '../obs/metrics.ts';

/** One model call's answer, as the loop uses it. */
export type ModelTurn = {
  response: AssistantMessage;
  usage: Usage;
  finishReason: LanguageModelV4FinishReason['unified'];
  attempts: number;
  retries: RetryEvent[];
};

/** Options for {@link callModel}. */
export type ModelTurnOptions = {
  caller: ModelCaller;
  request: ModelRequest;
  /** Stream the call and report text deltas as they arrive; otherwise make one non-streaming call. */
  onTextDelta?: (delta: string) => void;
  onRetry?: (retry: RetryEvent) => void;
  signal: AbortSignal;
  catalog?: ModelCatalog | undefined;
};

/**
 * Makes one model call through the caller (so retries, timeouts and fallback apply) and returns the answer as an
 * assistant message with its priced usage.
 * @throws AgencyError when the call fails after retries, or a stream fails after it started.
 */
export async function callModel({
  caller,
  request,
  onTextDelta,
  onRetry,
  signal,
  catalog,
}: ModelTurnOptions): Promise<ModelTurn> {
  const callOptions = onRetry ? { signal, onRetry } : { signal };
  if (!onTextDelta) {
    const { result, model, attempts, retries } = await caller.generate(request, callOptions);
    return {
      response: contentToAssistantMessage(result.content),
      usage: pricedUsage(result.usage, model, catalog),
      finishReason: result.finishReason.unified,
      attempts,
      retries,
    };
  }
  const { stream, model, attempts, retries } = await caller.stream(request, callOptions);
  const collector = createContentCollector();
  let usage: LanguageModelV4Usage | undefined;
  let finishReason: LanguageModelV4FinishReason['unified'] = 'interrupted';
  try {
    for await (const part of stream) {
      if (part.type === 'text-delta') onTextDelta(part.delta);
      if (part.type === 'error') throw toModelError(part.error, model);
      if (part.type === 'finish') {
        usage = part.usage;
        finishReason = part.finishReason.unified;
      } else {
        collector.add(part);
      }
    }
  } catch (error) {
    throw toModelError(error, model);
  }
  return {
    response: contentToAssistantMessage(collector.content()),
    usage: pricedUsage(usage ?? EMPTY_USAGE, model, catalog),
    finishReason,
    attempts,
    retries,
  };
}

const EMPTY_USAGE: LanguageModelV4Usage = {
  inputTokens: { total: 0, noCache: 0, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 0, text: 0, reasoning: 0 },
};

// A call's usage priced from the catalog, its cost counted in `agency.client.cost`.
function pricedUsage(usage: LanguageModelV4Usage, model: LanguageModelV4, catalog: ModelCatalog | undefined): Usage {
  const priced = usageFromV4(usage, model, catalog);
  countCost(priced.costUsd, model.modelId);
  return priced;
}
