import { describe, expect, it } from 'vitest';
import { type CliReport, TARGETS, targetResults } from '../../bench/cli/report.ts';
import { runFails } from '../../bench/journal/report.ts';
import type { CaseFigure } from '../../bench/cli/measure.ts';

const figure = (id: string, medianMs: number, failure?: string): CaseFigure => ({
  id,
  label: id,
  runs: 10,
  medianMs,
  p95Ms: medianMs,
  minMs: medianMs,
  maxMs: medianMs,
  failure,
});

const report = (cases: CaseFigure[]): CliReport => ({
  benchmark: 'cli',
  mode: 'quick',
  date: '2026-11-23T00:00:00.000Z',
  elapsedSeconds: 1,
  machine: { cpus: 2, cpuModel: 'test', loadAverage1m: 0, node: 'v24', platform: 'linux x64' },
  config: { runs: 10, warmups: 2 },
  cases,
  peersMissing: [],
  targets: TARGETS,
  targetsMet: [],
});

describe('cli benchmark targets', () => {
  const fast = [figure('floor', 20), figure('help', 80), figure('status-fresh', 120), figure('status-finished', 130)];

  it('meets every target when the commands are fast and right', () => {
    expect(targetResults(report(fast)).every(({ met }) => met)).toBe(true);
  });

  it('a slow command fails a full run only', () => {
    const results = targetResults(report([...fast.slice(0, 3), figure('status-finished', 190)]));
    expect(results.filter(({ met }) => !met).map(({ text }) => text)).toEqual([
      'status-finished ≤ 150 ms (median 190 ms)',
    ]);
    expect(runFails('quick', results)).toBe(false);
    expect(runFails('full', results)).toBe(true);
  });

  it('a command that fails or prints the wrong thing fails even a quick run', () => {
    const results = targetResults(report([...fast.slice(0, 1), figure('help', 80, 'exit 2: error'), ...fast.slice(2)]));
    expect(runFails('quick', results)).toBe(true);
    expect(results.at(-1)?.text).toContain('help: exit 2: error');
  });
});
