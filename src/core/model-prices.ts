import { calcPrice, findProvider } from '@pydantic/genai-prices';
import { DEFAULT_MODEL_CATALOG, lookupModel, type ModelCatalog, type ModelPrice } from './model-catalog.ts';

/** A model as pricing sees it: the AI SDK `provider` string (e.g. `openai.chat`), its id, and where it is served. */
export type PricedModel = {
  /** The AI SDK provider string, e.g. `openai.responses`, `anthropic.messages`, `openai-compatible.chat`. */
  provider?: string;
  modelId: string;
  /** An OpenAI-compatible model's base URL; its host says which vendor's prices apply. */
  baseURL?: string;
};

/** Token counts a price applies to. `inputTokens` includes the cached and cache-written ones. */
export type PricedTokens = {
  inputTokens: number;
  cachedInputTokens: number;
  cacheWriteTokens: number;
  outputTokens: number;
};

/** A model's price: where it came from, its base rates, and the cost of a usage at it. */
export type ModelPriceQuote = {
  /** `catalog`: an entry of the catalog in use (a user override); `genai-prices`: the bundled price data. */
  source: 'catalog' | 'genai-prices';
  /** The base rates in US dollars per million tokens. */
  price: ModelPrice;
  /** The cost in US dollars. Bundled prices apply their long-context tiers and time-of-day rates here. */
  cost(tokens: PricedTokens): number;
};

// AI SDK provider families whose name differs from the genai-prices provider id.
const PROVIDER_IDS: Readonly<Record<string, string>> = {
  xai: 'x-ai',
  'amazon-bedrock': 'aws',
  togetherai: 'together',
  'azure-openai': 'azure',
};

const endpoints = new WeakMap<object, string>();

/** Records the base URL an OpenAI-compatible model object sends to, so it is priced by that vendor's host. */
export function setModelEndpoint(model: object, baseURL: string): void {
  endpoints.set(model, baseURL);
}

/** The base URL recorded for a model object by {@link setModelEndpoint}. */
export function modelEndpoint(model: object): string | undefined {
  return endpoints.get(model);
}

// Every model call is priced, and a lookup that misses walks the catalog and the bundled data; both are read-only,
// so the answer for a model is remembered per catalog.
const quotes = new WeakMap<ModelCatalog, Map<string, ModelPriceQuote | undefined>>();

/**
 * Finds a model's price: its entry in `catalog` (the built-in catalog carries none, so any price there is yours),
 * else the price data bundled with `@pydantic/genai-prices`, matched by provider. OpenAI-compatible models are
 * matched by the host of their base URL (`api.deepseek.com`, `api.together.xyz`, …), so a local server has no price
 * unless you give it one. A bare model id, or a provider genai-prices does not know, is matched by id alone.
 *
 * @example
 * findModelPrice({ provider: 'openai.chat', modelId: 'gpt-4o-2024-08-06' })?.price // { input: 2.5, output: 10, … }
 * findModelPrice('llama-3.1-8b', extendCatalog({ 'llama-3.1-8b': { price: { input: 0.1, output: 0.2 } } }))
 */
export function findModelPrice(
  model: string | PricedModel,
  catalog: ModelCatalog = DEFAULT_MODEL_CATALOG,
): ModelPriceQuote | undefined {
  const priced: PricedModel = typeof model === 'string' ? { modelId: model } : model;
  const baseURL = priced.baseURL ?? (typeof model === 'object' ? endpoints.get(model) : undefined);
  const key = `${priced.provider ?? ''}\u0000${baseURL ?? ''}\u0000${priced.modelId}`;
  let known = quotes.get(catalog);
  if (!known) {
    known = new Map();
    quotes.set(catalog, known);
  }
  if (known.has(key)) return known.get(key);
  const quote = catalogQuote(priced.modelId, catalog) ?? bundledQuote(priced, baseURL);
  known.set(key, quote);
  return quote;
}

function catalogQuote(modelId: string, catalog: ModelCatalog): ModelPriceQuote | undefined {
  const price = lookupModel(modelId, catalog)?.price;
  return price && { source: 'catalog', price, cost: (tokens) => costOf(tokens, price) };
}

type PriceQuery = { providerId?: string; providerApiUrl?: string };

function bundledQuote(model: PricedModel, baseURL: string | undefined): ModelPriceQuote | undefined {
  const query = queryFor(model, baseURL);
  if (!query) return undefined;
  const found = calcPrice({}, model.modelId, query);
  const price = found ? flatPrice(found.model_price) : undefined;
  if (!found || !price) return undefined;
  const providerId = found.provider.id;
  return {
    source: 'genai-prices',
    price,
    cost(tokens) {
      try {
        const usage = {
          input_tokens: tokens.inputTokens,
          cache_read_tokens: tokens.cachedInputTokens,
          cache_write_tokens: tokens.cacheWriteTokens,
          output_tokens: tokens.outputTokens,
        };
        const priced = calcPrice(usage, model.modelId, { providerId });
        if (priced) return roundUsd(priced.total_price);
      } catch {
        // Malformed usage for this model's price shape: the base rates still give a cost.
      }
      return costOf(tokens, price);
    },
  };
}

function queryFor(model: PricedModel, baseURL: string | undefined): PriceQuery | undefined {
  const family = model.provider?.split('.')[0];
  if (family === undefined) return {};
  if (family === 'openai-compatible') return baseURL ? { providerApiUrl: baseURL } : undefined;
  const providerId = PROVIDER_IDS[family] ?? family;
  return findProvider({ providerId }) ? { providerId } : {};
}

// genai-prices keys are per million tokens (`_mtok`); a tiered price starts at `base`.
function flatPrice(prices: Record<string, unknown>): ModelPrice | undefined {
  const rate = (key: string): number | undefined => {
    const value = prices[key];
    if (typeof value === 'number') return value;
    const base = (value as { base?: unknown } | undefined)?.base;
    return typeof base === 'number' ? base : undefined;
  };
  const input = rate('input_mtok');
  const output = rate('output_mtok');
  if (input === undefined || output === undefined) return undefined;
  const cachedInput = rate('cache_read_mtok');
  const cacheWrite = rate('cache_write_mtok');
  return {
    input,
    output,
    ...(cachedInput === undefined ? {} : { cachedInput }),
    ...(cacheWrite === undefined ? {} : { cacheWrite }),
  };
}

/** The cost in US dollars of some tokens at a flat price. */
export function costOf(tokens: PricedTokens, price: ModelPrice): number {
  const uncached = Math.max(0, tokens.inputTokens - tokens.cachedInputTokens - tokens.cacheWriteTokens);
  const dollars =
    uncached * price.input +
    tokens.cachedInputTokens * (price.cachedInput ?? price.input) +
    tokens.cacheWriteTokens * (price.cacheWrite ?? price.input) +
    tokens.outputTokens * price.output;
  return roundUsd(dollars / 1_000_000);
}

/** Rounds to 1e-10 dollars: keeps sums free of binary noise such as 0.30000000000000004, far below a cent. */
export function roundUsd(value: number): number {
  return Math.round(value * 1e10) / 1e10;
}
