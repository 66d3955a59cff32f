import { describe, expect, it } from 'vitest';
import { formatAge, formatBytes, formatCost, formatDuration, formatTokens, humanize, shortDigest } from './format.ts';

describe('format', () => {
  it('abbreviates token counts', () => {
    expect(formatTokens(950)).toBe('950');
    expect(formatTokens(1_234)).toBe('1.23k');
    expect(formatTokens(12_400)).toBe('12.4k');
    expect(formatTokens(3_200_000)).toBe('3.2M');
    expect(formatTokens(null)).toBe('—');
  });

  it('keeps digits for small costs', () => {
    expect(formatCost(0)).toBe('$0');
    expect(formatCost(0.00421)).toBe('$0.0042');
    expect(formatCost(1.271)).toBe('$1.27');
    expect(formatCost(1234.5)).toBe('$1,235');
    expect(formatCost(null)).toBe('—');
  });

  it('reads durations at the right scale', () => {
    expect(formatDuration(850)).toBe('850 ms');
    expect(formatDuration(1_500)).toBe('1.5s');
    expect(formatDuration(65_000)).toBe('1m 05s');
    expect(formatDuration(7_500_000)).toBe('2h 05m');
    expect(formatDuration(2 * 86_400_000 + 3_600_000)).toBe('2d 1h');
    expect(formatDuration(-5)).toBe('0 ms');
  });

  it('tells ages against a fixed now', () => {
    const now = Date.parse('2026-11-21T12:00:00Z');
    expect(formatAge('2026-11-21T11:59:50Z', now)).toBe('just now');
    expect(formatAge('2026-11-21T11:56:00Z', now)).toBe('4 min ago');
    expect(formatAge('2026-11-21T09:00:00Z', now)).toBe('3 h ago');
    expect(formatAge('2026-11-19T12:00:00Z', now)).toBe('2 d ago');
    expect(formatAge('2026-11-21T12:05:00Z', now)).toBe('in 5 min');
    expect(formatAge('not a date', now)).toBe('—');
  });

  it('formats sizes, digests and words', () => {
    expect(formatBytes(512)).toBe('512 B');
    expect(formatBytes(2_048)).toBe('2 KB');
    expect(formatBytes(5_400_000)).toBe('5.1 MB');
    expect(shortDigest('9c1b2f0a7d3e4f5a6b7c')).toBe('9c1b2f0a7d3e…');
    expect(humanize('waiting_approval')).toBe('waiting for approval');
    expect(humanize('budget.tokens')).toBe('budget tokens');
  });
});
