import type { TargetResult } from '../journal/report.ts';
import type { Latency } from './measure.ts';

/** One store at one size: text queries (selective and broad) or vector queries. */
export type Row = {
  store: string;
  kind: 'text' | 'vector';
  entries: number;
  dims?: number;
  /** Entries written per second while loading (agency: putMany in batches; LangGraph: `batch` of puts). */
  putsPerSecond: number;
  /** What a text row times: agency's text recall, LangGraph PostgresStore's text search, or an exact-field filter. */
  compared?: 'text' | 'filter';
  selective?: Latency;
  broad?: Latency;
  vector?: Latency;
};

/** What `npm run bench -- memory` writes to bench/results/memory.json. */
export type MemoryReport = {
  benchmark: 'memory';
  mode: 'full' | 'quick';
  date: string;
  elapsedSeconds: number;
  machine: ReturnType<typeof import('../machine.ts').machine>;
  /** The 1-minute load average when the run began (`machine.loadAverage1m` is at its end). */
  loadAtStart: number;
  rows: Row[];
};

/** The goals: SQLite text p95 ≤ 20 ms at 100k and ≤ 100 ms at 1M; vector top-10 p50 ≤ 30 ms at 100k × 768. */
export const TARGETS = { textP95At100k: 20, textP95At1M: 100, vectorP50At100k: 30 };

/** The report as Markdown tables, and ratios against LangGraph's stores on the same queries. */
export function reportLines(report: MemoryReport): string[] {
  const text = report.rows.filter((row) => row.kind === 'text');
  const vector = report.rows.filter((row) => row.kind === 'vector');
  const ms = (l: Latency | undefined) => (l === undefined ? '—' : `${l.p50} / ${l.p95} (${l.cpuP50})`);
  const timed = (r: Row) => (r.compared === 'filter' ? 'exact-field filter' : 'text search');
  return [
    '| store | entries | loaded/s | timed | selective p50 / p95 (CPU p50), ms | broad p50 / p95 (CPU p50), ms |',
    '| ----- | ------: | -------: | ----- | --------------------------------: | ----------------------------: |',
    ...text.map(
      (r) =>
        `| ${r.store} | ${r.entries.toLocaleString('en')} | ${r.putsPerSecond} | ${timed(r)} | ${ms(r.selective)} | ${ms(r.broad)} |`,
    ),
    '',
    '| store | vectors | loaded/s | top-10 p50 / p95 (CPU p50), ms |',
    '| ----- | ------: | -------: | -----------------------------: |',
    ...vector.map(
      (r) => `| ${r.store} | ${r.entries.toLocaleString('en')} × ${r.dims} | ${r.putsPerSecond} | ${ms(r.vector)} |`,
    ),
    '',
    ...ratioLines(report.rows),
  ];
}

// The pairs compared: agency's store and the LangGraph store on the same data and queries.
const PAIRS = [
  ['agency SQLite', 'LangGraph InMemoryStore', 'text'],
  ['agency PostgreSQL', 'LangGraph PostgresStore', 'text'],
  ['agency SQLite', 'LangGraph InMemoryStore', 'vector'],
  ['agency PostgreSQL', 'LangGraph InMemoryStore', 'vector'],
] as const;

/** One line per pair found in the rows: LangGraph's p50 over agency's, query by query (above 1: agency is faster). */
export function ratioLines(rows: Row[]): string[] {
  const lines: string[] = [];
  for (const [ours, theirs, kind] of PAIRS) {
    for (const peer of rows.filter((r) => r.store === theirs && r.kind === kind)) {
      const row = rows.find((r) => r.store === ours && r.kind === kind && r.entries === peer.entries);
      if (row === undefined) continue;
      const parts = (['selective', 'broad', 'vector'] as const).flatMap((name) => {
        const [a, b] = [row[name], peer[name]];
        return a === undefined || b === undefined ? [] : [`${name} ${(b.p50 / Math.max(a.p50, 0.01)).toFixed(1)}×`];
      });
      lines.push(`- ${theirs} p50 ÷ ${ours} p50, ${peer.entries.toLocaleString('en')} entries: ${parts.join(', ')}`);
    }
  }
  return lines;
}

/** The goals, judged on the SQLite rows of the sizes they name (a quick run has none of those sizes). */
export function targetResults(report: MemoryReport): TargetResult[] {
  const results: TargetResult[] = [];
  for (const row of report.rows.filter((r) => r.store === 'agency SQLite')) {
    if (row.kind === 'text' && (row.entries === 100_000 || row.entries === 1_000_000)) {
      const goal = row.entries === 100_000 ? TARGETS.textP95At100k : TARGETS.textP95At1M;
      for (const [name, l] of [
        ['selective', row.selective],
        ['broad', row.broad],
      ] as const) {
        results.push({
          met: (l?.p95 ?? Infinity) <= goal,
          timing: true,
          text: `SQLite ${name} text p95 ≤ ${goal} ms at ${row.entries.toLocaleString('en')} (${l?.p95} ms; CPU p50 ${l?.cpuP50} ms)`,
        });
      }
    }
    if (row.kind === 'vector' && row.entries === 100_000) {
      const p50 = row.vector?.p50 ?? Infinity;
      results.push({
        met: p50 <= TARGETS.vectorP50At100k,
        timing: true,
        text: `SQLite vector top-10 p50 ≤ ${TARGETS.vectorP50At100k} ms at 100,000 × 768 (${p50} ms; CPU p50 ${row.vector?.cpuP50} ms)`,
      });
    }
  }
  return results;
}
