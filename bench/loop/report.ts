import type { ConstructFigure, CpuFigure, HeapFigure } from './measure.ts';

/** One framework's figures; a metric is missing when its child failed. */
export type FrameworkResult = {
  label: string;
  api: string;
  cpu?: CpuFigure[];
  heap?: HeapFigure;
  construct?: ConstructFigure;
  errors: string[];
};

/** A headline figure: `cpu<steps>` (µs per step), `heapRetained`, `constructUs` or `constructBytes`. */
export type MetricKey = `cpu${number}` | 'heapRetained' | 'constructUs' | 'constructBytes';

/** The headline figures compared across frameworks, in table order. */
function metricsOf(results: Record<string, FrameworkResult>): Array<{ key: MetricKey; label: string }> {
  return [
    ...cpuSizes(results).map((steps) => ({ key: `cpu${steps}` as const, label: `µs/step @${steps}` })),
    { key: 'heapRetained', label: 'heap retained' },
    { key: 'constructUs', label: 'build µs/agent' },
    { key: 'constructBytes', label: 'build bytes/agent' },
  ];
}

function cpuSizes(results: Record<string, FrameworkResult>): number[] {
  const sizes = Object.values(results).flatMap((result) => (result.cpu ?? []).map((figure) => figure.steps));
  return [...new Set(sizes)].sort((a, b) => a - b);
}

/** The headline figures of one framework. */
export function headline(result: FrameworkResult): Partial<Record<MetricKey, number>> {
  const out: Partial<Record<MetricKey, number>> = {};
  for (const figure of result.cpu ?? []) out[`cpu${figure.steps}`] = figure.usPerStep;
  if (result.heap) out.heapRetained = result.heap.retainedBytes;
  if (result.construct) {
    out.constructUs = result.construct.usPerAgent;
    out.constructBytes = result.construct.bytesPerAgent;
  }
  return out;
}

/** agency's figure divided by each peer's, per metric: below 1 means agency costs less. */
export function ratios(results: Record<string, FrameworkResult>): Record<string, Partial<Record<MetricKey, number>>> {
  const agency = results.agency ? headline(results.agency) : {};
  const out: Record<string, Partial<Record<MetricKey, number>>> = {};
  for (const [id, result] of Object.entries(results)) {
    if (id === 'agency') continue;
    const peer = headline(result);
    const row: Partial<Record<MetricKey, number>> = {};
    for (const { key } of metricsOf(results)) {
      const a = agency[key];
      const p = peer[key];
      if (a !== undefined && p !== undefined && p > 0) row[key] = round(a / p, 4);
    }
    out[id] = row;
  }
  return out;
}

/** The figures as a Markdown table. */
export function figuresTable(results: Record<string, FrameworkResult>): string {
  const sizes = cpuSizes(results);
  const heap = Object.values(results).find((result) => result.heap)?.heap;
  const construct = Object.values(results).find((result) => result.construct)?.construct;
  const header = [
    'framework',
    ...sizes.map((steps) => `µs/step @${steps}`),
    heap ? `heap retained @${heap.steps} (MB)` : undefined,
    heap ? 'retained ÷ transcript' : undefined,
    construct ? 'build µs/agent' : undefined,
    construct ? 'build KiB/agent' : undefined,
  ].filter((cell) => cell !== undefined);
  const rows = Object.values(results).map((result) => {
    const cpu = new Map((result.cpu ?? []).map((figure) => [figure.steps, figure]));
    return [
      result.label,
      ...sizes.map((steps) => {
        const figure = cpu.get(steps);
        return figure ? `${fixed(figure.usPerStep)} (${fixed(figure.min)})` : '—';
      }),
      heap ? (result.heap ? (result.heap.retainedBytes / 1e6).toFixed(2) : '—') : undefined,
      heap ? (result.heap ? `${result.heap.ratio.toFixed(2)}×` : '—') : undefined,
      construct ? (result.construct ? fixed(result.construct.usPerAgent) : '—') : undefined,
      construct ? (result.construct ? (result.construct.bytesPerAgent / 1024).toFixed(2) : '—') : undefined,
    ].filter((cell) => cell !== undefined);
  });
  return markdownTable(header, rows);
}

/** How many times agency's figure each peer's is (peer ÷ agency), as a Markdown table. */
export function ratiosTable(results: Record<string, FrameworkResult>): string {
  const table = ratios(results);
  const present = metricsOf(results).filter(({ key }) => Object.values(table).some((row) => row[key] !== undefined));
  const header = ['peer ÷ agency', ...present.map(({ label }) => label)];
  const rows = Object.entries(table).map(([id, row]) => [
    results[id]?.label ?? id,
    ...present.map(({ key }) => {
      const value = row[key];
      return value === undefined ? '—' : `${fixed(1 / value)}×`;
    }),
  ]);
  return markdownTable(header, rows);
}

/** Each target, met or missed, with the measured value; `missed` counts the misses. */
export function targetLines(results: Record<string, FrameworkResult>): { lines: string[]; missed: number } {
  const agency = results.agency;
  const lines: string[] = [];
  let missed = 0;
  if (!agency) return { lines, missed };
  const mark = (met: boolean) => {
    if (!met) missed++;
    return met ? 'met' : 'MISSED';
  };
  for (const figure of agency.cpu ?? []) {
    const peers = Object.entries(results)
      .filter(([id]) => id !== 'agency')
      .flatMap(([, result]) => (result.cpu ?? []).filter((peer) => peer.steps === figure.steps));
    const own = `CPU @${figure.steps} steps: ${fixed(figure.usPerStep)} µs/step, min ${fixed(figure.min)} (target ≤ 10: ${mark(figure.usPerStep <= 10)})`;
    if (peers.length === 0) {
      lines.push(own);
      continue;
    }
    const times = Math.min(...peers.map((peer) => peer.usPerStep)) / figure.usPerStep;
    lines.push(`${own}; ${fixed(times)}× below the fastest peer (target ≥ 10×: ${mark(times >= 10)})`);
  }
  if (agency.heap) {
    const { ratio, steps } = agency.heap;
    lines.push(`heap @${steps} steps: ${ratio.toFixed(2)}× the transcript (target ≤ 2×: ${mark(ratio <= 2)})`);
  }
  if (agency.construct) {
    const { usPerAgent, bytesPerAgent } = agency.construct;
    lines.push(
      `construction: ${fixed(usPerAgent)} µs/agent (target ≤ 5: ${mark(usPerAgent <= 5)}), ` +
        `${(bytesPerAgent / 1024).toFixed(2)} KiB/agent (target ≤ 8: ${mark(bytesPerAgent <= 8 * 1024)})`,
    );
  }
  return { lines, missed };
}

function markdownTable(header: string[], rows: string[][]): string {
  const widths = header.map((cell, column) => Math.max(cell.length, ...rows.map((row) => (row[column] ?? '').length)));
  const line = (cells: string[]) =>
    `| ${cells.map((cell, column) => (column === 0 ? cell.padEnd(widths[column] ?? 0) : cell.padStart(widths[column] ?? 0))).join(' | ')} |`;
  const rule = `|${widths.map((width, column) => (column === 0 ? `:${'-'.repeat(width + 1)}` : `${'-'.repeat(width + 1)}:`)).join('|')}|`;
  return [line(header), rule, ...rows.map(line)].join('\n');
}

/** Three significant figures, without exponent notation. */
export function fixed(value: number): string {
  if (!Number.isFinite(value)) return String(value);
  const digits = Math.abs(value) >= 100 ? 0 : Math.abs(value) >= 10 ? 1 : 2;
  return value.toFixed(digits);
}

function round(value: number, digits: number): number {
  return Number(value.toPrecision(digits));
}
