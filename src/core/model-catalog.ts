/** Prices in US dollars per million tokens. */
export type ModelPrice = {
  /** Input tokens not served from a cache. */
  input: number;
  /** Output tokens, reasoning included. */
  output: number;
  /** Input tokens read from the prompt cache. @default input */
  cachedInput?: number;
  /** Input tokens written to the prompt cache. @default input */
  cacheWrite?: number;
};

/** What a model can do, for choosing one in a fallback chain. */
export type ModelCapabilities = {
  /** Accepts function tools. */
  tools: boolean;
  /** Accepts image inputs. */
  images: boolean;
  /** The context window, input and output together, in tokens. */
  contextTokens: number;
};

/** One row of the catalog. */
export type ModelCatalogEntry = { price?: ModelPrice; capabilities?: ModelCapabilities };

/** Known models by id. A dated id such as `gpt-4o-2024-08-06` matches its base id `gpt-4o`. */
export type ModelCatalog = Readonly<Record<string, ModelCatalogEntry>>;

/** The date the built-in prices were taken from the providers' public price lists. */
export const CATALOG_PRICES_AS_OF = '2025-11-01';

const text = (contextTokens: number): ModelCapabilities => ({ tools: true, images: false, contextTokens });
const vision = (contextTokens: number): ModelCapabilities => ({ tools: true, images: true, contextTokens });

/**
 * Built-in prices and capabilities for current OpenAI, Anthropic and DeepSeek models. Prices change: pass your own
 * catalog (merged over this one) where exact cost matters.
 */
export const DEFAULT_MODEL_CATALOG: ModelCatalog = {
  // OpenAI
  'gpt-5': { price: { input: 1.25, cachedInput: 0.125, output: 10 }, capabilities: vision(400_000) },
  'gpt-5.1': { price: { input: 1.25, cachedInput: 0.125, output: 10 }, capabilities: vision(400_000) },
  'gpt-5-mini': { price: { input: 0.25, cachedInput: 0.025, output: 2 }, capabilities: vision(400_000) },
  'gpt-5-nano': { price: { input: 0.05, cachedInput: 0.005, output: 0.4 }, capabilities: vision(400_000) },
  'gpt-4.1': { price: { input: 2, cachedInput: 0.5, output: 8 }, capabilities: vision(1_047_576) },
  'gpt-4.1-mini': { price: { input: 0.4, cachedInput: 0.1, output: 1.6 }, capabilities: vision(1_047_576) },
  'gpt-4.1-nano': { price: { input: 0.1, cachedInput: 0.025, output: 0.4 }, capabilities: vision(1_047_576) },
  'gpt-4o': { price: { input: 2.5, cachedInput: 1.25, output: 10 }, capabilities: vision(128_000) },
  'gpt-4o-mini': { price: { input: 0.15, cachedInput: 0.075, output: 0.6 }, capabilities: vision(128_000) },
  o1: { price: { input: 15, cachedInput: 7.5, output: 60 }, capabilities: vision(200_000) },
  'o1-mini': { price: { input: 1.1, cachedInput: 0.55, output: 4.4 }, capabilities: text(128_000) },
  o3: { price: { input: 2, cachedInput: 0.5, output: 8 }, capabilities: vision(200_000) },
  'o3-mini': { price: { input: 1.1, cachedInput: 0.55, output: 4.4 }, capabilities: text(200_000) },
  'o4-mini': { price: { input: 1.1, cachedInput: 0.275, output: 4.4 }, capabilities: vision(200_000) },
  // Anthropic: cache writes are the 5-minute tier.
  'claude-opus-4-5': {
    price: { input: 5, cachedInput: 0.5, cacheWrite: 6.25, output: 25 },
    capabilities: vision(200_000),
  },
  'claude-opus-4-1': {
    price: { input: 15, cachedInput: 1.5, cacheWrite: 18.75, output: 75 },
    capabilities: vision(200_000),
  },
  'claude-opus-4': {
    price: { input: 15, cachedInput: 1.5, cacheWrite: 18.75, output: 75 },
    capabilities: vision(200_000),
  },
  'claude-sonnet-4-5': {
    price: { input: 3, cachedInput: 0.3, cacheWrite: 3.75, output: 15 },
    capabilities: vision(200_000),
  },
  'claude-sonnet-4': {
    price: { input: 3, cachedInput: 0.3, cacheWrite: 3.75, output: 15 },
    capabilities: vision(200_000),
  },
  'claude-3-7-sonnet': {
    price: { input: 3, cachedInput: 0.3, cacheWrite: 3.75, output: 15 },
    capabilities: vision(200_000),
  },
  'claude-haiku-4-5': {
    price: { input: 1, cachedInput: 0.1, cacheWrite: 1.25, output: 5 },
    capabilities: vision(200_000),
  },
  'claude-3-5-haiku': {
    price: { input: 0.8, cachedInput: 0.08, cacheWrite: 1, output: 4 },
    capabilities: vision(200_000),
  },
  // DeepSeek (OpenAI-compatible)
  'deepseek-chat': { price: { input: 0.28, cachedInput: 0.028, output: 0.42 }, capabilities: text(128_000) },
  'deepseek-reasoner': { price: { input: 0.28, cachedInput: 0.028, output: 0.42 }, capabilities: text(128_000) },
};

const DATE_SUFFIX = /-(\d{4}-\d{2}-\d{2}|\d{8}|latest)$/;

/**
 * Looks a model id up in a catalog. Tries the exact id, then the id without a date suffix, then the longest catalog
 * id that prefixes it on a `-` boundary (so `gpt-4o-mini-search` finds `gpt-4o-mini`, never `gpt-4o`).
 */
export function lookupModel(
  modelId: string,
  catalog: ModelCatalog = DEFAULT_MODEL_CATALOG,
): ModelCatalogEntry | undefined {
  const id = modelId.toLowerCase().replace(/^models\//, '');
  const exact = catalog[id] ?? catalog[id.replace(DATE_SUFFIX, '')];
  if (exact) return exact;
  let best: string | undefined;
  for (const key of Object.keys(catalog)) {
    if (id.startsWith(`${key}-`) && (best === undefined || key.length > best.length)) best = key;
  }
  return best === undefined ? undefined : catalog[best];
}

/** The built-in catalog with `overrides` merged over it, entry by entry. */
export function extendCatalog(overrides: ModelCatalog, base: ModelCatalog = DEFAULT_MODEL_CATALOG): ModelCatalog {
  const merged: Record<string, ModelCatalogEntry> = { ...base };
  for (const [id, entry] of Object.entries(overrides)) merged[id.toLowerCase()] = { ...base[id], ...entry };
  return merged;
}
