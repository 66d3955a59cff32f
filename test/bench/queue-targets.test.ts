import { describe, expect, it } from 'vitest';
import { CAPACITY_ASSUMPTIONS, capacity } from '../../bench/queue/capacity.ts';
import { type EngineFigures, type QueueReport, reportLines, TARGETS, targetResults } from '../../bench/queue/report.ts';
import { runFails } from '../../bench/journal/report.ts';

const row = (name: string, completedPerSecond: number, extra: Partial<EngineFigures> = {}): EngineFigures => ({
  name,
  role: 'raw',
  detail: 'batchSize 1',
  latency: { p50Ms: 10, p99Ms: 20, runs: 10 },
  throughput: { jobs: 100, senders: 4, sentPerSecond: 500, completedPerSecond, completed: 100, drained: true },
  serverCpuMsPerJob: 2,
  ...extra,
});

const cost = { statements: 100, connections: 4, perSecond: 1000, serverCpuMsEach: 0.2, latency: row('x', 1).latency };

const report = (engines: EngineFigures[]): QueueReport => ({
  benchmark: 'queue',
  mode: 'quick',
  date: '2026-11-25T00:00:00.000Z',
  elapsedSeconds: 1,
  machine: { cpus: 2, cpuModel: 'test', loadAverage1m: 0, node: 'v24', platform: 'linux x64' },
  postgres: 15,
  config: {},
  engines,
  costs: { heartbeat: cost, emptyPoll: cost, taskCpuMs: 2, taskCpuFrom: 'pg-boss, NOTIFY' },
  assumptions: CAPACITY_ASSUMPTIONS,
  capacity: capacity({ heartbeatCpuMs: 0.2, pollCpuMs: 0.2, taskCpuMs: 2 }),
  targets: TARGETS,
  targetsMet: [],
});

describe('queue benchmark targets', () => {
  it('judges the fleet layer against the raw row of the same shape, at 0.9×', () => {
    const agency = (perSecond: number) => row('agency', perSecond, { role: 'agency', baseline: 'pg-boss, NOTIFY' });
    const base = [row('pg-boss, polling', 10), row('pg-boss, NOTIFY', 100)];
    expect(targetResults(report([...base, agency(90)])).every(({ met }) => met)).toBe(true);
    const slow = targetResults(report([...base, agency(89)]));
    expect(slow.filter(({ met }) => !met).map(({ text }) => text)).toEqual([
      'agency: completed/s ≥ 0.9× pg-boss, NOTIFY (89 against 100; 0.89×)',
    ]);
    expect(runFails('quick', slow)).toBe(false);
    expect(runFails('full', slow)).toBe(true);
  });

  it('fails even a quick run when the fleet layer leaves tasks undone', () => {
    const undone = row('agency', 100, { role: 'agency', baseline: 'pg-boss, NOTIFY' });
    undone.throughput = { ...undone.throughput, completed: 99, drained: false };
    const results = targetResults(report([row('pg-boss, NOTIFY', 100), undone]));
    expect(runFails('quick', results)).toBe(true);
    expect(reportLines(report([undone])).join('\n')).toContain('99 of 100 in the window');
  });

  it('a missing baseline is a miss, not a pass', () => {
    const orphan = row('agency', 100, { role: 'agency', baseline: 'pg-boss, gone' });
    expect(targetResults(report([orphan]))[0]).toMatchObject({ met: false });
  });

  it('raw rows alone judge nothing', () => {
    expect(targetResults(report([row('pg-boss, polling', 10), row('graphile-worker', 200)]))).toEqual([]);
  });
});

describe('capacity on paper', () => {
  it('divides the server CPU budget by what one worker costs per second', () => {
    const fits = capacity(
      { heartbeatCpuMs: 0.5, pollCpuMs: 0.2, taskCpuMs: 3.6 },
      { heartbeatSeconds: 10, idlePollSeconds: 2, tasksPerWorkerPerHour: 60, serverCpuBudgetMsPerSecond: 500 },
    );
    // 0.05 ms/s of heartbeats, 0.1 of polls, 0.06 of tasks; each task wakes every worker: N² × 0.2 / 60 ms/s.
    expect(fits).toEqual({
      heartbeatsOnly: 10_000,
      withPollingAndTasks: 2380,
      withWakeups: 357,
      workerCpuMsPerSecond: 0.21,
    });
    // 357 workers: 357 × 0.21 + 357² × 0.2 / 60 ≈ 499.8 ms/s; one more is over the budget.
    expect(358 * 0.21 + (358 ** 2 * 0.2) / 60).toBeGreaterThan(500);
  });
});
