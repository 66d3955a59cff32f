import { type HostEntry, inspectHostPath } from './system-mounts.ts';

/**
 * How the sandbox covers one part of its fresh `/proc`: bound read-only from the host (`read-only`), or hidden
 * behind `/dev/null` (`mask-file`) or an empty read-only tmpfs (`mask-dir`).
 */
export type ProcMask = { kind: 'read-only' | 'mask-file' | 'mask-dir'; path: string };

/**
 * Kernel-wide knobs under `/proc` that stay readable but must not be written. A sandbox that runs as host root's
 * uid (agency as root) passes the kernel's permission checks on them: `/proc/sys/kernel/core_pattern` set to
 * `|/workdir/x` makes the host kernel run `x` as root outside every namespace. As in Docker and runc.
 */
export const PROC_READ_ONLY: readonly string[] = [
  '/proc/sys',
  '/proc/sysrq-trigger',
  '/proc/irq',
  '/proc/bus',
  '/proc/fs',
];

/**
 * Files under `/proc` that leak kernel state (memory layout, timers, keys, the kernel log) or are readable only by
 * root, hidden behind `/dev/null`. Docker and runc's list, plus the page-frame and slab tables root alone may read.
 */
export const PROC_MASKED_FILES: readonly string[] = [
  '/proc/kcore',
  '/proc/keys',
  '/proc/timer_list',
  '/proc/timer_stats',
  '/proc/sched_debug',
  '/proc/latency_stats',
  '/proc/kmsg',
  '/proc/kpagecount',
  '/proc/kpageflags',
  '/proc/kpagecgroup',
  '/proc/slabinfo',
  '/proc/vmallocinfo',
  '/proc/pagetypeinfo',
];

/** Directories under `/proc` with hardware interfaces, hidden behind an empty read-only tmpfs (Docker's list). */
export const PROC_MASKED_DIRS: readonly string[] = ['/proc/acpi', '/proc/asound', '/proc/scsi'];

/**
 * The `/proc` covers for this host: only entries that exist, since bwrap cannot mount over a missing one. `/proc`
 * shows the same kernel inside and out, so the host's entries are the sandbox's.
 *
 * @example
 * detectProcMasks() // [{ kind: 'read-only', path: '/proc/sys' }, …, { kind: 'mask-dir', path: '/proc/acpi' }]
 */
export function detectProcMasks(inspect: (path: string) => HostEntry = inspectHostPath): ProcMask[] {
  const exists = (path: string) => inspect(path).type !== 'missing';
  return [
    ...PROC_READ_ONLY.filter(exists).map((path) => ({ kind: 'read-only', path }) as const),
    ...PROC_MASKED_FILES.filter(exists).map((path) => ({ kind: 'mask-file', path }) as const),
    ...PROC_MASKED_DIRS.filter(exists).map((path) => ({ kind: 'mask-dir', path }) as const),
  ];
}

/**
 * `masks` on top of the floor no sandbox goes below: every {@link PROC_READ_ONLY} entry this host has, read-only,
 * first, so the covers given can add to it (a nested mask comes after and stays on top) but never take a knob away.
 * Without that floor, `procMasks: []` would give a sandbox started by root the `core_pattern` escape back.
 *
 * @example
 * withProcFloor([]) // [{ kind: 'read-only', path: '/proc/sys' }, …]
 */
export function withProcFloor(
  masks: readonly ProcMask[],
  inspect: (path: string) => HostEntry = inspectHostPath,
): ProcMask[] {
  const floor = PROC_READ_ONLY.filter((path) => inspect(path).type !== 'missing').map(
    (path) => ({ kind: 'read-only', path }) as const,
  );
  const added = masks.filter((mask) => !floor.some((entry) => entry.path === mask.path && entry.kind === mask.kind));
  return [...floor, ...added];
}
