import { AgencyError } from './errors.ts';
import type { ModelCatalog, ModelPrice } from './model-catalog.ts';

const SYNTAX = '<model>=<input>/<output>[/<cached input>[/<cache write>]]';

/**
 * Parses a price given on a command line, in US dollars per million tokens: `<model>=<input>/<output>`, optionally
 * followed by `/<cached input>` and `/<cache write>`. `<model>` is the model id the provider reports (for
 * `openai-compatible:<url>#<model>`, the part after `#`); a dated id such as `gpt-4o-2024-08-06` also matches it.
 *
 * @throws AgencyError `invalid_argument` naming the text and the expected form.
 * @example
 * parsePriceOverride('llama-3.1-8b=0.1/0.2') // ['llama-3.1-8b', { input: 0.1, output: 0.2 }]
 * parsePriceOverride('claude-sonnet-4-5=3/15/0.3/3.75')
 */
export function parsePriceOverride(text: string): [modelId: string, price: ModelPrice] {
  const equals = text.lastIndexOf('=');
  const modelId = text.slice(0, Math.max(0, equals)).trim();
  if (equals < 0 || modelId === '' || /\s/.test(modelId)) fail(text, 'it needs "<model>=" before the prices');
  const rates = text.slice(equals + 1).split('/');
  if (rates.length < 2 || rates.length > 4) fail(text, 'it needs two to four prices separated by "/"');
  const numbers = rates.map((rate) => (/^\s*\d+(\.\d+)?\s*$/.test(rate) ? Number(rate) : Number.NaN));
  if (numbers.some((rate) => !Number.isFinite(rate))) fail(text, 'each price must be a number of dollars, 0 or more');
  const [input, output, cachedInput, cacheWrite] = numbers as [number, number, number?, number?];
  return [
    modelId,
    {
      input,
      output,
      ...(cachedInput === undefined ? {} : { cachedInput }),
      ...(cacheWrite === undefined ? {} : { cacheWrite }),
    },
  ];
}

/** Catalog entries carrying the given prices, to merge over a catalog with `extendCatalog`. */
export function priceEntries(prices: Iterable<[modelId: string, price: ModelPrice]>): ModelCatalog {
  const entries: Record<string, { price: ModelPrice }> = {};
  for (const [modelId, price] of prices) entries[modelId.toLowerCase()] = { price };
  return entries;
}

function fail(text: string, reason: string): never {
  throw new AgencyError(
    'invalid_argument',
    `Price "${text}" is invalid: ${reason}. Use ${SYNTAX}, in US dollars per million tokens, ` +
      'e.g. llama-3.1-8b=0.1/0.2 or claude-sonnet-4-5=3/15/0.3/3.75',
    { details: { price: text } },
  );
}
