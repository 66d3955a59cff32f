import type { LanguageModelV4 } from '@ai-sdk/provider';
import type { ModelCatalog, ModelPrice } from '../core/model-catalog.ts';
import { findModelPrice, modelEndpoint, type PricedModel } from '../core/model-prices.ts';
import type { ModelChain, ModelChoice } from './capabilities.ts';
import { parseModelSpec } from './model-spec.ts';
import { resolveModel } from './resolve-model.ts';

/** A model, a spec string, or a fallback chain: what a runner or an agent is given. */
export type ChainInput = string | ModelChain;

/** One model of a chain as pricing sees it, with the name messages use for it. */
export type ChainModel = PricedModel & { name: string };

/** Where `replay:` cassettes are read from. */
export type ChainOptions = { cwd?: string };

/**
 * The models of a chain, as pricing sees them. Spec strings are parsed, not resolved, so no API key is needed;
 * a `replay:` cassette is opened for the provider and model it recorded.
 */
export function chainModels(model: ChainInput, { cwd }: ChainOptions = {}): ChainModel[] {
  if (typeof model === 'string') return [specModel(model, cwd)];
  const entries: ReadonlyArray<LanguageModelV4 | ModelChoice> = Array.isArray(model)
    ? model
    : [model as LanguageModelV4];
  return entries.map((entry) => {
    const { provider, modelId } = 'model' in entry ? entry.model : entry;
    const baseURL = modelEndpoint('model' in entry ? entry.model : entry);
    return { provider, modelId, name: `${provider}:${modelId}`, ...(baseURL ? { baseURL } : {}) };
  });
}

function specModel(spec: string, cwd: string | undefined): ChainModel {
  const parsed = parseModelSpec(spec);
  switch (parsed.kind) {
    case 'openai':
      return { provider: `openai.${parsed.api}`, modelId: parsed.modelId, name: spec };
    case 'anthropic':
      return { provider: 'anthropic.messages', modelId: parsed.modelId, name: spec };
    case 'openai-compatible':
      return { provider: 'openai-compatible.chat', modelId: parsed.modelId, baseURL: parsed.baseURL, name: spec };
    case 'replay': {
      const replayed = resolveModel(spec, cwd === undefined ? {} : { cwd });
      return { provider: replayed.provider, modelId: replayed.modelId, name: spec };
    }
  }
}

/** The dearest base rates of a chain's priced models: what a budget estimates the next call with. */
export function dearestPrice(
  model: ChainInput,
  catalog?: ModelCatalog,
  options: ChainOptions = {},
): ModelPrice | undefined {
  let dearest: ModelPrice | undefined;
  for (const entry of chainModels(model, options)) {
    const price = findModelPrice(entry, catalog)?.price;
    if (!price) continue;
    dearest = dearest
      ? { input: Math.max(dearest.input, price.input), output: Math.max(dearest.output, price.output) }
      : price;
  }
  return dearest;
}
