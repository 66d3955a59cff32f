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

/** One row of the catalog. A `price` here overrides the bundled price data for that model. */
export type ModelCatalogEntry = { price?: ModelPrice; capabilities?: ModelCapabilities };

/** Known models by id. A dated id such as `gpt-4o-2024-08-06` matches its base id `gpt-4o`. */
export type ModelCatalog = Readonly<Record<string, ModelCatalogEntry>>;

const text = (contextTokens: number): ModelCatalogEntry => ({
  capabilities: { tools: true, images: false, contextTokens },
});
const vision = (contextTokens: number): ModelCatalogEntry => ({
  capabilities: { tools: true, images: true, contextTokens },
});

/**
 * Built-in capabilities of current OpenAI, Anthropic and DeepSeek models, for choosing a model in a fallback chain.
 * It carries no prices: those come from the data bundled with `@pydantic/genai-prices` (see `findModelPrice`). A
 * `price` in a catalog you pass (e.g. through {@link extendCatalog}) overrides the bundled one for that model.
 */
export const DEFAULT_MODEL_CATALOG: ModelCatalog = {
  // OpenAI
  'gpt-5': vision(400_000),
  'gpt-5.1': vision(400_000),
  'gpt-5-mini': vision(400_000),
  'gpt-5-nano': vision(400_000),
  'gpt-4.1': vision(1_047_576),
  'gpt-4.1-mini': vision(1_047_576),
  'gpt-4.1-nano': vision(1_047_576),
  'gpt-4o': vision(128_000),
  'gpt-4o-mini': vision(128_000),
  o1: vision(200_000),
  'o1-mini': text(128_000),
  o3: vision(200_000),
  'o3-mini': text(200_000),
  'o4-mini': vision(200_000),
  // Anthropic
  'claude-opus-4-5': vision(200_000),
  'claude-opus-4-1': vision(200_000),
  'claude-opus-4': vision(200_000),
  'claude-sonnet-4-5': vision(200_000),
  'claude-sonnet-4': vision(200_000),
  'claude-3-7-sonnet': vision(200_000),
  'claude-haiku-4-5': vision(200_000),
  'claude-3-5-haiku': vision(200_000),
  // DeepSeek (OpenAI-compatible)
  'deepseek-chat': text(128_000),
  'deepseek-reasoner': text(128_000),
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

/**
 * The built-in catalog with `overrides` merged over it, entry by entry.
 *
 * @example
 * createRunner({ catalog: extendCatalog({ 'llama-3.1-8b': { price: { input: 0.1, output: 0.2 } } }) })
 */
export function extendCatalog(overrides: ModelCatalog, base: ModelCatalog = DEFAULT_MODEL_CATALOG): ModelCatalog {
  const merged: Record<string, ModelCatalogEntry> = { ...base };
  for (const [id, entry] of Object.entries(overrides))
    merged[id.toLowerCase()] = { ...base[id.toLowerCase()], ...entry };
  return merged;
}
