import type { LanguageModelV4Usage } from '@ai-sdk/provider';
import { DEFAULT_MODEL_CATALOG, type ModelCatalog } from './model-catalog.ts';
import { findModelPrice, type PricedModel, roundUsd } from './model-prices.ts';

/** Token counts and cost of one or more model calls. */
export type Usage = {
  /** All input tokens, cached ones included. */
  inputTokens: number;
  /** All output tokens, reasoning included. */
  outputTokens: number;
  /** `inputTokens + outputTokens`. */
  totalTokens: number;
  /** Output tokens spent on reasoning. */
  reasoningTokens: number;
  /** Input tokens read from the provider's prompt cache. */
  cachedInputTokens: number;
  /** Input tokens written to the provider's prompt cache. */
  cacheWriteTokens: number;
  /**
   * Cost in US dollars. Absent when no price is known for a model involved; a run with a cost budget refuses to
   * start with such a model.
   */
  costUsd?: number;
};

/** A usage of zero tokens and zero cost. */
export function emptyUsage(): Usage {
  return {
    inputTokens: 0,
    outputTokens: 0,
    totalTokens: 0,
    reasoningTokens: 0,
    cachedInputTokens: 0,
    cacheWriteTokens: 0,
    costUsd: 0,
  };
}

/**
 * The sum of two usages. The cost is the sum of both costs when both are known; if either is unknown the sum is
 * unknown too, so a budget never mistakes an unpriced call for a free one.
 */
export function addUsage(a: Usage, b: Usage): Usage {
  const sum: Usage = {
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    totalTokens: a.totalTokens + b.totalTokens,
    reasoningTokens: a.reasoningTokens + b.reasoningTokens,
    cachedInputTokens: a.cachedInputTokens + b.cachedInputTokens,
    cacheWriteTokens: a.cacheWriteTokens + b.cacheWriteTokens,
  };
  if (a.costUsd !== undefined && b.costUsd !== undefined) sum.costUsd = roundUsd(a.costUsd + b.costUsd);
  return sum;
}

/** `after - before`, field by field: what a step spent. */
export function subtractUsage(after: Usage, before: Usage): Usage {
  const delta: Usage = {
    inputTokens: after.inputTokens - before.inputTokens,
    outputTokens: after.outputTokens - before.outputTokens,
    totalTokens: after.totalTokens - before.totalTokens,
    reasoningTokens: after.reasoningTokens - before.reasoningTokens,
    cachedInputTokens: after.cachedInputTokens - before.cachedInputTokens,
    cacheWriteTokens: after.cacheWriteTokens - before.cacheWriteTokens,
  };
  if (after.costUsd !== undefined && before.costUsd !== undefined)
    delta.costUsd = roundUsd(after.costUsd - before.costUsd);
  return delta;
}

/**
 * Converts an AI SDK usage report into a {@link Usage}, pricing it with {@link findModelPrice}: the catalog's entry
 * for the model, else the bundled `@pydantic/genai-prices` data matched by provider. Pass the model object (or its
 * `provider` and `modelId`) so the right vendor's price applies; a bare id is matched by id alone.
 *
 * @example
 * usageFromV4(result.usage, model).costUsd
 * usageFromV4(result.usage, 'gpt-4o-2024-08-06').costUsd
 */
export function usageFromV4(
  usage: LanguageModelV4Usage,
  model: string | PricedModel,
  catalog: ModelCatalog = DEFAULT_MODEL_CATALOG,
): Usage {
  const cachedInputTokens = usage.inputTokens.cacheRead ?? 0;
  const cacheWriteTokens = usage.inputTokens.cacheWrite ?? 0;
  const inputTokens =
    usage.inputTokens.total ?? (usage.inputTokens.noCache ?? 0) + cachedInputTokens + cacheWriteTokens;
  const outputTokens = usage.outputTokens.total ?? (usage.outputTokens.text ?? 0) + (usage.outputTokens.reasoning ?? 0);
  const result: Usage = {
    inputTokens,
    outputTokens,
    totalTokens: inputTokens + outputTokens,
    reasoningTokens: usage.outputTokens.reasoning ?? 0,
    cachedInputTokens,
    cacheWriteTokens,
  };
  const quote = findModelPrice(model, catalog);
  if (quote) result.costUsd = quote.cost(result);
  return result;
}
