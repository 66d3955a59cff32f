import type { Regression } from '../../eval/compare.ts';
import { type CaseReport, type EvalReport, formatShare, formatUsd } from '../../eval/report.ts';
import { paint, type Output } from '../render.ts';

const HEADER = ['case', 'result', 'finish', 'tokens in/out', 'cost', 'steps', 'calls', 'time', 'approvals', 'overhead'];

function cells(name: string, result: string, finish: string, item: Pick<CaseReport, 'metrics' | 'overhead'>) {
  const { metrics } = item;
  return [
    name,
    result,
    finish,
    `${metrics.inputTokens}/${metrics.outputTokens}`,
    formatUsd(metrics.costUsd),
    String(metrics.steps),
    String(metrics.modelCalls),
    `${(metrics.wallMs / 1000).toFixed(1)} s`,
    String(metrics.approvals),
    formatShare(item.overhead.share),
  ];
}

/** One line as a case ends, while the others run. */
export function formatCaseLine(item: CaseReport, out: Output): string {
  const colour = item.status === 'passed' ? 'green' : item.status === 'failed' ? 'red' : 'dim';
  return `  ${paint(out, colour, item.status)} ${printable(item.name)} (${(item.metrics.wallMs / 1000).toFixed(1)} s)\n`;
}

/**
 * The report as a table: one row per case and a total, framework overhead against its goal, then why each case that
 * did not pass failed.
 */
export function formatEvalTable(report: EvalReport, out: Output): string {
  const { totals } = report;
  const rows = report.cases.map((item) => cells(printable(item.name), item.status, item.finishReason ?? '-', item));
  const ran = totals.cases - totals.skipped;
  rows.push(cells('total', `${totals.passed}/${ran} (${formatShare(totals.successRate)})`, '', totals));
  const widths = HEADER.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column]?.length ?? 0)));
  const line = (row: string[]) =>
    `${row
      .map((cell, column) => cell.padEnd(widths[column] ?? 0))
      .join('  ')
      .trimEnd()}\n`;
  const over = totals.overhead.share > report.overheadGoal;
  const lines = [
    '\n',
    line(HEADER),
    ...rows.map(line),
    '\n',
    `Framework overhead: ${formatShare(totals.overhead.share)} of ${totals.overhead.transcriptTokens} transcript tokens ` +
      `(${totals.overhead.parts.framework} added by agency; goal ≤ ${formatShare(report.overheadGoal)}` +
      `${over ? paint(out, 'yellow', ', over the goal') : ''})\n`,
  ];
  if (report.interrupted)
    lines.push(paint(out, 'yellow', 'Interrupted: the cases not finished are reported as skipped or cancelled.\n'));
  lines.push(...failureLines(report.cases));
  return lines.join('');
}

// A run that failed with an error fails most checks after it; the error alone says why.
function failureLines(cases: CaseReport[]): string[] {
  const lines: string[] = [];
  for (const item of cases) {
    if (item.status === 'passed') continue;
    const mark = item.status === 'skipped' ? '-' : '✗';
    if (item.error) lines.push(`${mark} ${item.error.startsWith(item.name) ? '' : `${item.name}: `}${item.error}\n`);
    else
      for (const check of item.checks)
        if (!check.passed) lines.push(`${mark} ${item.name}: ${check.name}: ${check.detail}\n`);
  }
  return lines.length > 0 ? ['\n', ...lines.map(printable)] : [];
}

// A case's name is a folder name and its error may quote a model: neither may send control sequences to a terminal.
function printable(text: string): string {
  return text.replace(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/g, '?');
}

/** The regressions found by `--compare`, or that there are none. */
export function formatRegressions(regressions: Regression[], file: string, out: Output): string {
  if (regressions.length === 0) return `No regressions against ${file}.\n`;
  const lines = regressions.map((item) => printable(`  ${item.case}: ${item.detail}\n`));
  return `${paint(out, 'red', `${regressions.length} regression(s) against ${file}:`)}\n${lines.join('')}`;
}
