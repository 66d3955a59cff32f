import { describe, expect, it } from 'vitest';
import { extendCatalog, lookupModel } from './model-catalog.ts';
import { addUsage, emptyUsage, subtractUsage, usageFromV4 } from './usage.ts';

const v4 = (input: number, output: number, cacheRead = 0, cacheWrite = 0, reasoning = 0) => ({
  inputTokens: { total: input, noCache: input - cacheRead - cacheWrite, cacheRead, cacheWrite },
  outputTokens: { total: output, text: output - reasoning, reasoning },
});

describe('usage and cost', () => {
  it('prices a call from the bundled price data, with cached input at the cached rate', () => {
    // gpt-4o: $2.50 input, $1.25 cached input, $10 output per million tokens.
    const usage = usageFromV4(v4(1_000_000, 100_000, 400_000), 'gpt-4o-2024-08-06');
    expect(usage).toMatchObject({ inputTokens: 1_000_000, outputTokens: 100_000, cachedInputTokens: 400_000 });
    expect(usage.costUsd).toBeCloseTo(0.6 * 2.5 + 0.4 * 1.25 + 0.1 * 10, 10);
  });

  it('prices Anthropic cache writes', () => {
    // claude-sonnet-4-5: $3 input, $0.30 cache read, $3.75 cache write, $15 output.
    const usage = usageFromV4(v4(2_000, 1_000, 500, 1_000), 'claude-sonnet-4-5-20250929');
    expect(usage.costUsd).toBeCloseTo((500 * 3 + 500 * 0.3 + 1_000 * 3.75 + 1_000 * 15) / 1e6, 12);
  });

  it('leaves cost unknown for an unpriced model, and keeps it unknown through sums', () => {
    const unpriced = usageFromV4(v4(10, 5), 'my-local-llama');
    expect(unpriced.costUsd).toBeUndefined();
    expect(addUsage(usageFromV4(v4(10, 5), 'gpt-4o'), unpriced).costUsd).toBeUndefined();
    expect(addUsage(emptyUsage(), usageFromV4(v4(10, 5), 'gpt-4o')).costUsd).toBeGreaterThan(0);
  });

  it('fills missing totals from their parts', () => {
    const usage = usageFromV4(
      {
        inputTokens: { total: undefined, noCache: 7, cacheRead: 3, cacheWrite: undefined },
        outputTokens: { total: undefined, text: 4, reasoning: 6 },
      },
      'x',
    );
    expect(usage).toMatchObject({ inputTokens: 10, outputTokens: 10, totalTokens: 20, reasoningTokens: 6 });
  });

  it('adds and subtracts field by field', () => {
    const a = usageFromV4(v4(100, 10), 'gpt-4o-mini');
    const sum = addUsage(a, a);
    expect(sum.totalTokens).toBe(220);
    expect(subtractUsage(sum, a)).toEqual(a);
  });

  it('lets callers override prices', () => {
    const catalog = extendCatalog({ 'my-local-llama': { price: { input: 1, output: 2 } } });
    expect(usageFromV4(v4(1_000_000, 1_000_000), 'my-local-llama', catalog).costUsd).toBe(3);
  });

  it('matches dated ids to the right base id', () => {
    expect(lookupModel('gpt-4o-mini-2024-07-18')).toBe(lookupModel('gpt-4o-mini'));
    expect(lookupModel('gpt-4o-mini-2024-07-18')).not.toBe(lookupModel('gpt-4o'));
    expect(lookupModel('claude-sonnet-4-20250514')).toBe(lookupModel('claude-sonnet-4'));
    expect(lookupModel('gpt-4.1-nano-2025-04-14')?.capabilities?.contextTokens).toBe(1_047_576);
    expect(lookupModel('unknown-model')).toBeUndefined();
  });
});
