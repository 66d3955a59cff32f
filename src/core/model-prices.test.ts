import { afterEach, describe, expect, it, vi } from 'vitest';
import { extendCatalog } from './model-catalog.ts';
import { findModelPrice, setModelEndpoint } from './model-prices.ts';
import { parsePriceOverride, priceEntries } from './price-override.ts';

const tokens = (inputTokens: number, outputTokens: number, cachedInputTokens = 0, cacheWriteTokens = 0) => ({
  inputTokens,
  outputTokens,
  cachedInputTokens,
  cacheWriteTokens,
});

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('findModelPrice: the bundled @pydantic/genai-prices data', () => {
  it('prices OpenAI models by provider, dated ids included, with the cached-input rate', () => {
    const quote = findModelPrice({ provider: 'openai.chat', modelId: 'gpt-4o-2024-08-06' });
    expect(quote).toMatchObject({ source: 'genai-prices', price: { input: 2.5, cachedInput: 1.25, output: 10 } });
    // 600k uncached at $2.50, 400k cached at $1.25, 100k out at $10 per million.
    expect(quote?.cost(tokens(1_000_000, 100_000, 400_000))).toBeCloseTo(1.5 + 0.5 + 1, 10);
  });

  it('keeps Anthropic cache reads and writes', () => {
    const quote = findModelPrice({ provider: 'anthropic.messages', modelId: 'claude-sonnet-4-5-20250929' });
    expect(quote?.price).toEqual({ input: 3, output: 15, cachedInput: 0.3, cacheWrite: 3.75 });
    expect(quote?.cost(tokens(2_000, 1_000, 500, 1_000))).toBeCloseTo(
      (500 * 3 + 500 * 0.3 + 1_000 * 3.75 + 1_000 * 15) / 1e6,
      12,
    );
  });

  it('applies a long-context tier that a flat rate would miss (Claude Sonnet 4.5 over 200k input tokens)', () => {
    const quote = findModelPrice({ provider: 'anthropic.messages', modelId: 'claude-sonnet-4-5' });
    const long = quote?.cost(tokens(300_000, 0)) ?? 0;
    expect(long).toBeGreaterThan((300_000 * 3) / 1e6);
  });

  it('prices an OpenAI-compatible model by the host it is served from, and a local one not at all', () => {
    expect(
      findModelPrice({
        provider: 'openai-compatible.chat',
        modelId: 'deepseek-chat',
        baseURL: 'https://api.deepseek.com/v1',
      }),
    ).toMatchObject({ source: 'genai-prices' });
    // Same model name on a local server: the vendor's price would be a guess, so there is none.
    for (const modelId of ['deepseek-chat', 'gpt-4o', 'llama-3.1-8b']) {
      expect(
        findModelPrice({ provider: 'openai-compatible.chat', modelId, baseURL: 'http://127.0.0.1:8000/v1' }),
      ).toBeUndefined();
    }
    expect(findModelPrice({ provider: 'openai-compatible.chat', modelId: 'deepseek-chat' })).toBeUndefined();
  });

  it('reads the base URL an OpenAI-compatible model object was made for', () => {
    const model = { provider: 'openai-compatible.chat', modelId: 'deepseek-chat' };
    setModelEndpoint(model, 'https://api.deepseek.com/v1');
    expect(findModelPrice(model)).toMatchObject({ source: 'genai-prices' });
  });

  it('matches a provider it does not know, or a bare id, by model id alone', () => {
    expect(findModelPrice({ provider: 'scripted', modelId: 'gpt-4o-mini' })?.price.input).toBe(0.15);
    expect(findModelPrice('claude-haiku-4-5')?.price).toMatchObject({ input: 1, output: 5 });
    expect(findModelPrice('my-local-llama')).toBeUndefined();
  });

  it('never touches the network: the data is bundled in the package', () => {
    const fetch = vi.fn(() => Promise.reject(new Error('no network')));
    vi.stubGlobal('fetch', fetch);
    const quote = findModelPrice({ provider: 'openai.responses', modelId: 'gpt-5-mini-2025-08-07' });
    expect(quote?.cost(tokens(1_000, 1_000))).toBeGreaterThan(0);
    expect(fetch).not.toHaveBeenCalled();
  });
});

describe('price overrides', () => {
  it('a catalog price wins over the bundled one', () => {
    const catalog = extendCatalog(priceEntries([parsePriceOverride('gpt-4o=1/2')]));
    const quote = findModelPrice({ provider: 'openai.chat', modelId: 'gpt-4o-2024-08-06' }, catalog);
    expect(quote).toMatchObject({ source: 'catalog', price: { input: 1, output: 2 } });
    expect(quote?.cost(tokens(1_000_000, 1_000_000))).toBe(3);
  });

  it('parses <model>=<input>/<output>[/<cached input>[/<cache write>]]', () => {
    expect(parsePriceOverride('llama-3.1-8b=0.1/0.2')).toEqual(['llama-3.1-8b', { input: 0.1, output: 0.2 }]);
    expect(parsePriceOverride('claude-sonnet-4-5=3/15/0.3/3.75')).toEqual([
      'claude-sonnet-4-5',
      { input: 3, output: 15, cachedInput: 0.3, cacheWrite: 3.75 },
    ]);
    expect(parsePriceOverride('free=0/0')).toEqual(['free', { input: 0, output: 0 }]);
  });

  it.each([
    ['llama', 'needs "<model>="'],
    ['=1/2', 'needs "<model>="'],
    ['llama=1', 'two to four prices'],
    ['llama=1/2/3/4/5', 'two to four prices'],
    ['llama=1/two', 'must be a number'],
    ['llama=-1/2', 'must be a number'],
  ])('rejects %j, saying what it needs', (text, reason) => {
    expect(() => parsePriceOverride(text)).toThrow(reason);
    expect(() => parsePriceOverride(text)).toThrow('e.g. llama-3.1-8b=0.1/0.2');
  });
});
