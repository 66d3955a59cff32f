import type { ProcMask } from './proc-masks.ts';
import type { ResolvedSandboxLimits } from './sandbox-limits.ts';
import { prlimitOptions } from './sandbox-limits.ts';
import type { ResolvedWrapOptions } from './sandbox-paths.ts';
import type { SystemMount } from './system-mounts.ts';

/** What {@link bwrapArgs} needs to know about the host; read once, when the sandbox is created. */
export type BwrapHost = {
  /** How `/usr`, `/bin`, `/lib*` are recreated. */
  systemMounts: readonly SystemMount[];
  /** Host files under `/etc` bound read-only when they exist. */
  etcPaths: readonly string[];
  /** The read-only and masked parts of `/proc`. */
  procMasks: readonly ProcMask[];
  /** The host's `prlimit`, under a system directory so the sandbox sees it at the same path. */
  prlimitPath: string;
};

/** bwrap reads the seccomp program from this descriptor. */
export const SECCOMP_FD = 3;
/** bwrap waits for one byte on this descriptor before it starts the command. */
export const RELEASE_FD = 4;
/** The uid and gid of the command inside its user namespace: `nobody`, whoever runs agency. */
export const SANDBOX_UID = 65534;
/** The host name inside the sandbox, so the host's own name does not leak. */
export const SANDBOX_HOSTNAME = 'agency-sandbox';

/**
 * The bwrap argv for one command. The environment is not in here: bwrap is spawned with exactly the command's
 * environment, because values passed as `--setenv` would be readable by every host user in `/proc/<pid>/cmdline`.
 * The command runs under `prlimit`, which applies `options.limits` inside the sandbox's user namespace.
 */
export function bwrapArgs(command: readonly string[], options: ResolvedWrapOptions, host: BwrapHost): string[] {
  return [
    ...namespaceArgs(options.allowNetwork),
    ...systemArgs(host),
    ...scratchArgs(host.procMasks, options.limits),
    ...bindArgs(options),
    // Last among the mounts: the root tmpfs, where bwrap made the mount points, becomes read-only.
    ...['--remount-ro', '/'],
    ...['--seccomp', String(SECCOMP_FD), '--block-fd', String(RELEASE_FD)],
    ...['--chdir', options.workdir],
    ...['--', host.prlimitPath, ...prlimitOptions(options.limits), '--', ...command],
  ];
}

// A user namespace of its own, in which the command is nobody and cannot make another. The command's kernel uid is
// still agency's (host root's, when agency runs as root): the /proc covers, not the namespace, keep it off sysctls.
function namespaceArgs(allowNetwork: boolean): string[] {
  return [
    '--unshare-all',
    ...(allowNetwork ? ['--share-net'] : []),
    ...['--unshare-user', '--uid', String(SANDBOX_UID), '--gid', String(SANDBOX_UID), '--disable-userns'],
    ...['--die-with-parent', '--new-session', '--cap-drop', 'ALL', '--hostname', SANDBOX_HOSTNAME],
  ];
}

function systemArgs(host: BwrapHost): string[] {
  const args: string[] = [];
  for (const mount of host.systemMounts) {
    if (mount.kind === 'ro-bind') args.push('--ro-bind', mount.path, mount.path);
    else args.push('--symlink', mount.target, mount.path);
  }
  for (const path of host.etcPaths) args.push('--ro-bind-try', path, path);
  return args;
}

// A fresh /proc with its kernel knobs read-only and its leaky files masked; a minimal /dev, read-only but for a
// size-limited /dev/shm; a size-limited private /tmp.
function scratchArgs(procMasks: readonly ProcMask[], limits: ResolvedSandboxLimits): string[] {
  const args = ['--proc', '/proc'];
  for (const mask of procMasks) {
    if (mask.kind === 'read-only') args.push('--ro-bind', mask.path, mask.path);
    else if (mask.kind === 'mask-file') args.push('--ro-bind', '/dev/null', mask.path);
    else args.push('--tmpfs', mask.path, '--remount-ro', mask.path);
  }
  const size = String(limits.tmpBytes);
  args.push('--dev', '/dev', '--size', size, '--tmpfs', '/dev/shm', '--remount-ro', '/dev');
  args.push('--size', size, '--tmpfs', '/tmp');
  return args;
}

function bindArgs(options: ResolvedWrapOptions): string[] {
  const args: string[] = [];
  for (const bind of orderBinds(options)) args.push(bind.writable ? '--bind' : '--ro-bind', bind.path, bind.path);
  for (const mount of options.fileMounts) args.push('--ro-bind', mount.hostPath, mount.path);
  return args;
}

// bwrap applies mounts in order, so a path nested in another must come after it. At equal depth read-only comes
// last, so a path listed both ways ends up read-only.
function orderBinds(options: ResolvedWrapOptions): Array<{ path: string; writable: boolean }> {
  const binds = [
    { path: options.workdir, writable: true },
    ...options.readWritePaths.map((path) => ({ path, writable: true })),
    ...options.readOnlyPaths.map((path) => ({ path, writable: false })),
  ];
  const depth = (path: string) => path.split('/').length;
  return binds.sort((a, b) => depth(a.path) - depth(b.path) || Number(!a.writable) - Number(!b.writable));
}
