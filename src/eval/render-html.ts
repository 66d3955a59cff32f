import type { Regression } from './compare.ts';
import { type CaseReport, type EvalReport, formatShare, formatUsd } from './report.ts';

/** Text made safe for HTML content and for attribute values in double quotes. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

const PART_COLOURS = { framework: '#d9534f', brief: '#5b8def', tools: '#9b7fd1', content: '#7cc47c' } as const;
const BAR_WIDTH = 420;
const ROW = 22;
const LABEL = 180;

/**
 * A self-contained HTML page for an eval report: totals, a table of the cases, and inline SVG charts of the
 * transcript's tokens by origin and of the framework overhead against its goal. It loads nothing (a Content Security
 * Policy forbids scripts and every outside resource) and every text from the report is escaped.
 */
export function renderEvalHtml(report: EvalReport, regressions: Regression[] = []): string {
  const { totals } = report;
  const title = `agency eval: ${report.suite}`;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<title>${escapeHtml(title)}</title>
<style>
body{font:14px/1.4 system-ui,sans-serif;margin:2rem;color:#222}table{border-collapse:collapse;margin:1rem 0}
th,td{border-bottom:1px solid #ddd;padding:4px 10px;text-align:right}th:first-child,td:first-child{text-align:left}
.passed{color:#2a7a2a}.failed{color:#b52a2a}.skipped{color:#777}.note{color:#555}svg text{font:12px system-ui,sans-serif}
pre{white-space:pre-wrap;background:#f6f6f6;padding:.5rem}
</style></head><body>
<h1>${escapeHtml(title)}</h1>
<p>Model <b>${escapeHtml(report.model)}</b>, ${escapeHtml(report.startedAt)} to ${escapeHtml(report.completedAt)}.
${report.interrupted ? '<b class="failed">Interrupted: this report is partial.</b>' : ''}</p>
<p><b>${totals.passed}/${totals.cases - totals.skipped}</b> passed (${formatShare(totals.successRate)}), ${totals.skipped} skipped;
${totals.metrics.inputTokens} input and ${totals.metrics.outputTokens} output tokens, cost ${formatUsd(totals.metrics.costUsd)},
${totals.metrics.steps} steps, ${totals.metrics.approvals} approvals; framework overhead ${formatShare(totals.overhead.share)}
(goal ≤ ${formatShare(report.overheadGoal)}).</p>
${regressionsHtml(regressions)}
${casesTable(report.cases)}
<h2>Transcript tokens by origin</h2>
${legend()}
${partsChart(report.cases)}
<h2>Framework overhead per case</h2>
${overheadChart(report)}
${failuresHtml(report.cases)}
</body></html>
`;
}

function casesTable(cases: CaseReport[]): string {
  const rows = cases.map(
    (item) =>
      `<tr><td>${escapeHtml(item.name)}</td><td class="${item.status}">${item.status}</td>` +
      `<td>${escapeHtml(item.finishReason ?? '-')}</td><td>${item.metrics.inputTokens}/${item.metrics.outputTokens}</td>` +
      `<td>${formatUsd(item.metrics.costUsd)}</td><td>${item.metrics.steps}</td><td>${item.metrics.modelCalls}</td>` +
      `<td>${(item.metrics.wallMs / 1000).toFixed(1)} s</td><td>${item.metrics.approvals}</td><td>${formatShare(item.overhead.share)}</td></tr>`,
  );
  return `<table><thead><tr><th>case</th><th>result</th><th>finish</th><th>tokens in/out</th><th>cost</th><th>steps</th>
<th>calls</th><th>time</th><th>approvals</th><th>overhead</th></tr></thead><tbody>
${rows.join('\n')}
</tbody></table>`;
}

function legend(): string {
  const items = Object.entries(PART_COLOURS).map(
    ([name, colour], index) =>
      `<rect x="${index * 110}" y="2" width="12" height="12" fill="${colour}"/><text x="${index * 110 + 16}" y="13">${name}</text>`,
  );
  return `<svg width="460" height="18" role="img" aria-label="legend">${items.join('')}</svg>`;
}

function partsChart(cases: CaseReport[]): string {
  const most = Math.max(1, ...cases.map((item) => item.overhead.transcriptTokens));
  const rows = cases.map((item, row) => {
    let x = LABEL;
    const bars = (Object.keys(PART_COLOURS) as Array<keyof typeof PART_COLOURS>).map((part) => {
      const width = (item.overhead.parts[part] / most) * BAR_WIDTH;
      const bar = `<rect x="${x.toFixed(1)}" y="${row * ROW + 4}" width="${width.toFixed(1)}" height="${ROW - 8}" fill="${PART_COLOURS[part]}"><title>${part}: ${item.overhead.parts[part]} tokens</title></rect>`;
      x += width;
      return bar;
    });
    return `${rowLabel(item.name, row)}${bars.join('')}<text x="${(x + 6).toFixed(1)}" y="${row * ROW + 15}">${item.overhead.transcriptTokens}</text>`;
  });
  return svg(cases.length, rows, 'transcript tokens by origin per case');
}

function overheadChart(report: EvalReport): string {
  const most = Math.max(report.overheadGoal * 2, ...report.cases.map((item) => item.overhead.share));
  const scale = (share: number) => LABEL + (share / most) * BAR_WIDTH;
  const rows = report.cases.map((item, row) => {
    const over = item.overhead.share > report.overheadGoal;
    return `${rowLabel(item.name, row)}<rect x="${LABEL}" y="${row * ROW + 4}" width="${(scale(item.overhead.share) - LABEL).toFixed(1)}" height="${ROW - 8}" fill="${over ? '#d9534f' : '#7cc47c'}"/><text x="${(scale(item.overhead.share) + 6).toFixed(1)}" y="${row * ROW + 15}">${formatShare(item.overhead.share)}</text>`;
  });
  const goal = scale(report.overheadGoal).toFixed(1);
  rows.push(
    `<line x1="${goal}" x2="${goal}" y1="0" y2="${report.cases.length * ROW}" stroke="#333" stroke-dasharray="4 3"/><text x="${goal}" y="${report.cases.length * ROW + 14}">goal ${formatShare(report.overheadGoal)}</text>`,
  );
  return svg(report.cases.length + 1, rows, 'framework overhead per case against the goal');
}

function rowLabel(name: string, row: number): string {
  const shown = name.length > 24 ? `${name.slice(0, 23)}…` : name;
  return `<text x="0" y="${row * ROW + 15}">${escapeHtml(shown)}</text>`;
}

function svg(rows: number, content: string[], label: string): string {
  return `<svg width="${LABEL + BAR_WIDTH + 80}" height="${rows * ROW + 4}" role="img" aria-label="${label}">${content.join('')}</svg>`;
}

function regressionsHtml(regressions: Regression[]): string {
  if (regressions.length === 0) return '';
  const items = regressions.map((item) => `<li><b>${escapeHtml(item.case)}</b>: ${escapeHtml(item.detail)}</li>`);
  return `<h2 class="failed">Regressions</h2><ul>${items.join('')}</ul>`;
}

function failuresHtml(cases: CaseReport[]): string {
  const failed = cases.filter((item) => item.status !== 'passed');
  if (failed.length === 0) return '';
  const items = failed.map((item) => {
    const lines = [
      item.error ?? '',
      ...item.checks.filter((check) => !check.passed).map((check) => `${check.name}: ${check.detail}`),
    ];
    return `<h3>${escapeHtml(item.name)}</h3><pre>${escapeHtml(lines.filter(Boolean).join('\n'))}</pre>`;
  });
  return `<h2>Failures</h2>${items.join('\n')}`;
}
