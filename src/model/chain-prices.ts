import type { LanguageModelV4 } from '@ai-sdk/provider';
import { AgencyError } from '../core/errors.ts';
import type { ModelCatalog, ModelPrice } from '../core/model-catalog.ts';
import { findModelPrice, modelEndpoint, type PricedModel } from '../core/model-prices.ts';
import type { ModelChain, ModelChoice } from './capabilities.ts';
import { replayModel } from './cassette/replay-model.ts';
import { parseModelSpec } from './model-spec.ts';

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
      const replayed = replayModel(parsed.path, cwd === undefined ? {} : { cwd });
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

/**
 * Refuses a cost budget that could not be enforced: every model that may run, fallbacks included, must have a
 * price, or the run's cost would be unknown from the first call to that model on and the budget would never fire.
 *
 * @throws AgencyError `invalid_config` naming each unpriced model and the ways to price it.
 * @example
 * checkChainPriced({ model: 'openai-compatible:http://127.0.0.1:8000/v1#llama-3.1-8b', maxCostUsd: 0.5 });
 */
export function checkChainPriced({
  model,
  catalog,
  maxCostUsd,
  cwd,
}: {
  model: ChainInput;
  catalog?: ModelCatalog | undefined;
  maxCostUsd: number | null | undefined;
  cwd?: string;
}): void {
  if (maxCostUsd === null || maxCostUsd === undefined) return;
  const unpriced = chainModels(model, cwd === undefined ? {} : { cwd }).filter(
    (entry) => findModelPrice(entry, catalog) === undefined,
  );
  if (unpriced.length === 0) return;
  const id = unpriced[0]?.modelId ?? 'model';
  const named = unpriced.map((entry) => `${entry.name} (model id "${entry.modelId}")`).join(', ');
  throw new AgencyError(
    'invalid_config',
    `The cost budget (maxCostUsd $${maxCostUsd}) cannot be enforced: no price is known for ${named}. ` +
      'Give every model in the chain a price, in US dollars per million input/output tokens:\n' +
      `  agency run or resume: --price ${id}=<input>/<output>, e.g. --price ${id}=0.15/0.6\n` +
      `  createRunner: catalog: extendCatalog({ '${id}': { price: { input: 0.15, output: 0.6 } } })\n` +
      'or run without a cost budget. See docs/runner.md, "Budgets and stop reasons".',
    { details: { unpriced: unpriced.map(({ name, modelId }) => ({ name, modelId })), maxCostUsd } },
  );
}
