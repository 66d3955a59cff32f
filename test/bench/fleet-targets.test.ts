import { describe, expect, it } from 'vitest';
import { type FleetReport, TARGETS, targetResults } from '../../bench/fleet/report.ts';
import { runFails } from '../../bench/journal/report.ts';

const report = (workerP50: number, pollsPerSecond = 30): FleetReport => ({
  benchmark: 'fleet',
  mode: 'quick',
  date: '2026-11-25T00:00:00.000Z',
  elapsedSeconds: 1,
  machine: { cpus: 2, cpuModel: 'test', loadAverage1m: 0, node: 'v24', platform: 'linux x64' },
  worker: 'fake',
  command: ['/bin/sh', '-c', 'echo done'],
  config: {},
  dispatch: {
    floor: { p50Ms: 5, p99Ms: 10, runs: 40 },
    worker: { p50Ms: workerP50, p99Ms: 12, runs: 40 },
    director: { p50Ms: 110, p99Ms: 120, runs: 3 },
  },
  scan: { ports: 200, p50Ms: 10, p99Ms: 30, runs: 5, medianMs: 10 },
  timeToSee: { samples: 2, medianMs: 2500, maxMs: 4000, times: [2500, 4000] },
  polling: {
    workers: 50,
    working: 25,
    seconds: 4,
    pollsPerSecond,
    expectedPollsPerSecond: 30,
    cpuMsPerSecond: 20,
    cpuPercentOfCore: 2,
    eventLoopP99Ms: 5,
    unhealthy: 0,
  },
  targets: TARGETS,
  targetsMet: [],
});

describe('fleet benchmark targets', () => {
  it('holds dispatch to 1.2× the floor plus 2 ms', () => {
    expect(targetResults(report(8)).every(({ met }) => met)).toBe(true);
    const slow = targetResults(report(8.1)).filter(({ met }) => !met);
    expect(slow.map(({ text }) => text)).toEqual([
      'submit → turn over p50 ≤ 1.2× spawning the executor directly + 2 ms (8.1 ms against 5 ms; bound 8 ms)',
    ]);
    expect(runFails('quick', slow)).toBe(false);
    expect(runFails('full', slow)).toBe(true);
  });

  it('a discovery polling at the wrong pace fails even a quick run', () => {
    const results = targetResults(report(8, 10));
    expect(runFails('quick', results)).toBe(true);
  });
});
