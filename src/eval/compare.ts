import { readFile } from 'node:fs/promises';
import { AgencyError } from '../core/errors.ts';
import { parseContractFile } from '../task/task-spec.ts';
import { type CaseReport, type EvalReport, evalReportSchema } from './report.ts';

/** One way a case got worse since an earlier report. */
export type Regression = {
  case: string;
  kind: 'success_lost' | 'tokens' | 'cost' | 'time';
  detail: string;
};

/** How much worse counts as a regression. */
export type CompareThresholds = {
  /** A relative rise in tokens, cost or wall time beyond which it is a regression. @default 0.1 (10 %) */
  threshold?: number;
  /** Wall time must also rise by more than this many milliseconds (a replay's time is a few noisy ms). @default 1000 */
  minTimeMs?: number;
};

/**
 * Reads an earlier `agency eval --json` report for `--compare`.
 * @throws AgencyError `invalid_config` naming the file and each bad field, or saying it is missing.
 */
export async function readEvalReport(file: string): Promise<EvalReport> {
  const raw = await readFile(file, 'utf8').catch((cause: unknown) => {
    throw new AgencyError('invalid_config', `${file} cannot be read to compare with (${(cause as Error).message})`, {
      cause,
      details: { file },
    });
  });
  return parseContractFile(file, raw, evalReportSchema, 'invalid_config');
}

/**
 * The regressions of `current` against `previous`, case by case (matched by name): a case that passed and no longer
 * does (or is gone), and tokens, cost or wall time up by more than the threshold. A new case is not a regression.
 */
export function compareReports(
  previous: EvalReport,
  current: EvalReport,
  { threshold = 0.1, minTimeMs = 1000 }: CompareThresholds = {},
): Regression[] {
  const now = new Map(current.cases.map((item) => [item.name, item]));
  const regressions: Regression[] = [];
  for (const before of previous.cases) {
    const after = now.get(before.name);
    if (!after) {
      if (before.status === 'passed')
        regressions.push({
          case: before.name,
          kind: 'success_lost',
          detail: 'passed before, and is no longer in the suite',
        });
      continue;
    }
    if (before.status === 'passed' && after.status !== 'passed')
      regressions.push({ case: before.name, kind: 'success_lost', detail: `passed before, ${after.status} now` });
    regressions.push(...rises(before, after, threshold, minTimeMs));
  }
  return regressions;
}

function rises(before: CaseReport, after: CaseReport, threshold: number, minTimeMs: number): Regression[] {
  const found: Regression[] = [];
  const up = (kind: Regression['kind'], was: number | null, is: number | null, unit: string, minRise = 0) => {
    if (was === null || is === null || is - was <= minRise || is <= was * (1 + threshold)) return;
    const pct = was === 0 ? 'from nothing' : `+${Math.round(((is - was) / was) * 100)}%`;
    found.push({ case: before.name, kind, detail: `${kind} ${format(was)} → ${format(is)} ${unit} (${pct})` });
  };
  up('tokens', before.metrics.totalTokens, after.metrics.totalTokens, 'tokens');
  up('cost', before.metrics.costUsd, after.metrics.costUsd, 'USD');
  up('time', before.metrics.wallMs, after.metrics.wallMs, 'ms', minTimeMs);
  return found;
}

function format(value: number): string {
  return Number.isInteger(value) ? String(value) : value.toFixed(4);
}
