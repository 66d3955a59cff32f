import { availableParallelism, cpus, loadavg } from 'node:os';

/** The machine a benchmark ran on, for its report: cores, CPU model, load average, Node and platform. */
export function machine(): { cpus: number; cpuModel: string; loadAverage1m: number; node: string; platform: string } {
  return {
    cpus: availableParallelism(),
    cpuModel: cpus()[0]?.model ?? 'unknown',
    loadAverage1m: Number(loadavg()[0]?.toFixed(2)),
    node: process.version,
    platform: `${process.platform} ${process.arch}`,
  };
}
