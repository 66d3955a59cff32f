import { describe, expect, it } from 'vitest';
import { runFails } from '../../bench/journal/report.ts';
import type { Latency } from '../../bench/memory/measure.ts';
import { type MemoryReport, ratioLines, type Row, targetResults } from '../../bench/memory/report.ts';

const ms = (p50: number, p95 = p50): Latency => ({ runs: 10, p50, p95, cpuP50: p50 });
const text = (store: string, entries: number, p95: number): Row => ({
  store,
  kind: 'text',
  entries,
  putsPerSecond: 1,
  selective: ms(p95 / 2, p95),
  broad: ms(p95 / 2, p95),
});
const report = (rows: Row[], mode: 'full' | 'quick' = 'full'): MemoryReport => ({
  benchmark: 'memory',
  mode,
  date: '2026-11-25T00:00:00.000Z',
  elapsedSeconds: 1,
  machine: { cpus: 2, cpuModel: 'test', loadAverage1m: 0, node: 'v24', platform: 'linux x64' },
  loadAtStart: 0,
  rows,
});
const vector = (store: string, p50: number): Row => ({
  store,
  kind: 'vector',
  entries: 100_000,
  dims: 768,
  putsPerSecond: 1,
  vector: ms(p50),
});

describe('memory benchmark targets', () => {
  it('judges the SQLite rows of 100,000 and 1,000,000 entries against their goals', () => {
    const rows = [
      text('agency SQLite', 100_000, 19),
      text('agency SQLite', 1_000_000, 101),
      vector('agency SQLite', 30),
    ];
    const results = targetResults(report(rows));
    expect(results.map(({ met, text: line }) => [met, line])).toEqual([
      [true, 'SQLite selective text p95 ≤ 20 ms at 100,000 (19 ms; CPU p50 9.5 ms)'],
      [true, 'SQLite broad text p95 ≤ 20 ms at 100,000 (19 ms; CPU p50 9.5 ms)'],
      [false, 'SQLite selective text p95 ≤ 100 ms at 1,000,000 (101 ms; CPU p50 50.5 ms)'],
      [false, 'SQLite broad text p95 ≤ 100 ms at 1,000,000 (101 ms; CPU p50 50.5 ms)'],
      [true, 'SQLite vector top-10 p50 ≤ 30 ms at 100,000 × 768 (30 ms; CPU p50 30 ms)'],
    ]);
    expect(runFails('full', results)).toBe(true);
  });

  it('judges no goal on a quick run, nor on other stores', () => {
    const rows = [text('agency SQLite', 2_000, 500), text('agency PostgreSQL', 100_000, 500)];
    expect(targetResults(report(rows, 'quick'))).toEqual([]);
  });

  it('divides LangGraph p50 by agency p50 on the rows of the same store pair, kind and size', () => {
    const rows = [
      text('agency PostgreSQL', 100_000, 4),
      { ...text('LangGraph PostgresStore', 100_000, 400), broad: ms(50) },
      text('LangGraph InMemoryStore', 2_000, 10),
      vector('agency SQLite', 10),
      vector('LangGraph InMemoryStore', 250),
    ];
    expect(ratioLines(rows)).toEqual([
      '- LangGraph PostgresStore p50 ÷ agency PostgreSQL p50, 100,000 entries: selective 100.0×, broad 25.0×',
      '- LangGraph InMemoryStore p50 ÷ agency SQLite p50, 100,000 entries: vector 25.0×',
    ]);
  });
});
