import { findOnPath, isExecutableFile } from '../core/find-on-path.ts';
import { homedir } from 'node:os';
import { isAbsolute } from 'node:path';
import { AgencyError } from '../core/errors.ts';
import { type BwrapHost, bwrapArgs } from './bwrap-args.ts';
import { detectProcMasks, type ProcMask, withProcFloor } from './proc-masks.ts';
import type { Sandbox, WrapOptions } from './sandbox.ts';
import { assertCommand, isWithin, resolveWrapOptions } from './sandbox-paths.ts';
import { bwrapMissingError, sandboxSetupError } from './sandbox-unavailable.ts';
import { buildSeccompFilter } from './seccomp-filter.ts';
import { seccompArchFor } from './seccomp-syscalls.ts';
import { DEFAULT_ETC_PATHS, detectSystemMounts, type SystemMount } from './system-mounts.ts';

/** Options for {@link createBwrapSandbox}. */
export type BwrapSandboxOptions = {
  /** The bwrap binary (bubblewrap ≥ 0.8.0): an absolute path, or a name looked up on the host's `PATH` now. @default 'bwrap' */
  bwrapPath?: string;
  /** util-linux's `prlimit`, which applies the limits; it must lie in a system directory. @default 'prlimit' */
  prlimitPath?: string;
  /** Host files under `/etc` bound read-only when they exist. @default DEFAULT_ETC_PATHS */
  etcPaths?: readonly string[];
  /** How `/usr`, `/bin`, `/lib*` are recreated. @default detectSystemMounts() */
  systemMounts?: readonly SystemMount[];
  /**
   * The read-only and masked parts of `/proc`. The kernel knobs (`PROC_READ_ONLY`) are read-only whatever this
   * says: these covers are added to them (see {@link withProcFloor}). @default detectProcMasks()
   */
  procMasks?: readonly ProcMask[];
  /** Where a bare `bwrapPath` or `prlimitPath` is looked up. @default process.env.PATH */
  searchPath?: string;
  /** The host user's home directory, which is never writable as a whole. @default os.homedir() */
  home?: string;
  /** The CPU architecture the seccomp filter is built for: `x64` or `arm64`. @default process.arch */
  arch?: string;
};

// The byte that lets bwrap start the command (see WrappedCommand.releaseInput).
const RELEASE = Uint8Array.of(0x31);

/**
 * A sandbox that runs commands under bubblewrap: private user (the command is `nobody` in it), mount, PID, IPC,
 * UTS, cgroup and (unless allowed) network namespaces; read-only system directories; a fresh `/proc` with its kernel
 * knobs read-only and its leaky files masked; a minimal read-only `/dev`; size-limited `/tmp` and `/dev/shm`; no
 * capabilities, no new privileges, a seccomp filter, resource limits, a new terminal session, and death with its
 * parent. Only the workdir and `readWritePaths` are writable.
 *
 * It fails closed: when bwrap or prlimit is missing, or the host's CPU has no seccomp filter, `wrap` throws
 * AgencyError `sandbox_unavailable` with the fix, and {@link runSandboxed} also probes that bwrap is bubblewrap and
 * can create the sandbox before it runs anything.
 *
 * @example
 * const sandbox = createBwrapSandbox();
 * const result = await runSandboxed(sandbox, ['make', 'test'], { workdir: '/srv/agency/tasks/t1/work', timeoutMs: 60_000 });
 */
export function createBwrapSandbox({
  bwrapPath = 'bwrap',
  prlimitPath = 'prlimit',
  etcPaths = DEFAULT_ETC_PATHS,
  systemMounts,
  procMasks,
  searchPath = process.env['PATH'] ?? '',
  home = homedir(),
  arch = process.arch,
}: BwrapSandboxOptions = {}): Sandbox {
  const file = locateExecutable(bwrapPath, searchPath, 'bwrapPath');
  const system = systemMounts ?? detectSystemMounts();
  const prlimit = locateExecutable(prlimitPath, searchPath, 'prlimitPath');
  const masks = withProcFloor(procMasks ?? detectProcMasks());
  const seccompArch = seccompArchFor(arch);
  const filter = seccompArch === undefined ? undefined : buildSeccompFilter(seccompArch);
  return {
    name: 'bwrap',
    wrap(command, options: WrapOptions) {
      assertCommand(command);
      const resolved = resolveWrapOptions(options, home);
      if (file === undefined) throw bwrapMissingError(bwrapPath);
      const host: BwrapHost = {
        systemMounts: system,
        etcPaths,
        procMasks: masks,
        prlimitPath: checkPrlimit(prlimit, prlimitPath, system),
      };
      if (filter === undefined) {
        throw sandboxSetupError(
          `agency's seccomp filter has syscall tables for x64 and arm64, and this host is ${arch}`,
          'run agency on x64 or arm64 Linux',
        );
      }
      return {
        file,
        args: bwrapArgs(command, resolved, host),
        env: resolved.env,
        cwd: resolved.workdir,
        inputs: [filter, RELEASE], // fds 3 and 4: SECCOMP_FD and RELEASE_FD
        releaseInput: 1,
      };
    },
  };
}

function checkPrlimit(prlimit: string | undefined, prlimitPath: string, system: readonly SystemMount[]): string {
  if (prlimit === undefined) {
    throw sandboxSetupError(
      `prlimit (util-linux), which applies the sandbox's resource limits, was not found at ${JSON.stringify(prlimitPath)}`,
      'install util-linux (`apt-get install util-linux`; on Alpine, `apk add util-linux-misc`) or pass prlimitPath',
    );
  }
  if (!system.some((mount) => isWithin(prlimit, mount.path))) {
    throw sandboxSetupError(
      `prlimit at ${JSON.stringify(prlimit)} is outside the system directories the sandbox can see`,
      'pass a prlimitPath under /usr, such as /usr/bin/prlimit',
    );
  }
  return prlimit;
}

function locateExecutable(name: string, searchPath: string, field: string): string | undefined {
  if (name.includes('\0') || name === '') {
    throw new AgencyError('invalid_argument', `${field} ${JSON.stringify(name)} must be a path or a command name.`);
  }
  if (name.includes('/')) {
    if (!isAbsolute(name)) {
      throw new AgencyError('invalid_argument', `${field} ${JSON.stringify(name)} must be absolute or a bare name.`);
    }
    return isExecutableFile(name) ? name : undefined;
  }
  return findOnPath(name, searchPath);
}
