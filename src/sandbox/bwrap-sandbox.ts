import { accessSync, constants, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, isAbsolute, join } from 'node:path';
import { AgencyError } from '../core/errors.ts';
import type { Sandbox, WrapOptions } from './sandbox.ts';
import { assertCommand, type ResolvedWrapOptions, resolveWrapOptions } from './sandbox-paths.ts';
import { bwrapMissingError } from './sandbox-unavailable.ts';
import { DEFAULT_ETC_PATHS, detectSystemMounts, type SystemMount } from './system-mounts.ts';

/** Options for {@link createBwrapSandbox}. */
export type BwrapSandboxOptions = {
  /** The bwrap binary: an absolute path, or a name looked up on the host's `PATH` now. @default 'bwrap' */
  bwrapPath?: string;
  /** Host files under `/etc` bound read-only when they exist. @default DEFAULT_ETC_PATHS */
  etcPaths?: readonly string[];
  /** How `/usr`, `/bin`, `/lib*` are recreated. @default detectSystemMounts() */
  systemMounts?: readonly SystemMount[];
  /** Where a bare `bwrapPath` is looked up. @default process.env.PATH */
  searchPath?: string;
  /** The host user's home directory, which is never writable as a whole. @default os.homedir() */
  home?: string;
};

/** The host name inside the sandbox, so the host's own name does not leak. */
const SANDBOX_HOSTNAME = 'agency-sandbox';

/**
 * A sandbox that runs commands under bubblewrap: private mount, PID, IPC, UTS, cgroup and (unless allowed) network
 * namespaces, read-only system directories, a fresh `/proc`, `/dev` and `/tmp`, no capabilities, a new terminal
 * session, and death with its parent. Only the workdir and `readWritePaths` are writable.
 *
 * It fails closed: when bwrap is missing, `wrap` throws AgencyError `sandbox_unavailable` with the fix, and
 * {@link runSandboxed} also probes that bwrap can create namespaces before it runs anything.
 *
 * @example
 * const sandbox = createBwrapSandbox();
 * const result = await runSandboxed(sandbox, ['make', 'test'], { workdir: '/srv/agency/tasks/t1/work', timeoutMs: 60_000 });
 */
export function createBwrapSandbox({
  bwrapPath = 'bwrap',
  etcPaths = DEFAULT_ETC_PATHS,
  systemMounts,
  searchPath = process.env['PATH'] ?? '',
  home = homedir(),
}: BwrapSandboxOptions = {}): Sandbox {
  const file = locateExecutable(bwrapPath, searchPath);
  const system = systemMounts ?? detectSystemMounts();
  return {
    name: 'bwrap',
    wrap(command, options: WrapOptions) {
      assertCommand(command);
      const resolved = resolveWrapOptions(options, home);
      if (file === undefined) throw bwrapMissingError(bwrapPath);
      return {
        file,
        args: bwrapArgs(command, resolved, system, etcPaths),
        env: resolved.env,
        cwd: resolved.workdir,
      };
    },
  };
}

/**
 * The bwrap argv for one command. The environment is not in here: bwrap is spawned with exactly the command's
 * environment, because values passed as `--setenv` would be readable by every host user in `/proc/<pid>/cmdline`.
 */
export function bwrapArgs(
  command: readonly string[],
  options: ResolvedWrapOptions,
  systemMounts: readonly SystemMount[],
  etcPaths: readonly string[],
): string[] {
  const args = ['--unshare-all'];
  if (options.allowNetwork) args.push('--share-net');
  args.push('--die-with-parent', '--new-session', '--cap-drop', 'ALL', '--hostname', SANDBOX_HOSTNAME);
  for (const mount of systemMounts) {
    if (mount.kind === 'ro-bind') args.push('--ro-bind', mount.path, mount.path);
    else args.push('--symlink', mount.target, mount.path);
  }
  for (const path of etcPaths) args.push('--ro-bind-try', path, path);
  args.push('--proc', '/proc', '--dev', '/dev', '--tmpfs', '/tmp');
  for (const bind of orderBinds(options)) args.push(bind.writable ? '--bind' : '--ro-bind', bind.path, bind.path);
  for (const mount of options.fileMounts) args.push('--ro-bind', mount.hostPath, mount.path);
  args.push('--chdir', options.workdir, '--', ...command);
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

function locateExecutable(name: string, searchPath: string): string | undefined {
  if (name.includes('\0') || name === '') {
    throw new AgencyError('invalid_argument', `bwrapPath ${JSON.stringify(name)} must be a path or a command name.`);
  }
  if (name.includes('/')) {
    if (!isAbsolute(name)) {
      throw new AgencyError('invalid_argument', `bwrapPath ${JSON.stringify(name)} must be absolute or a bare name.`);
    }
    return isExecutableFile(name) ? name : undefined;
  }
  for (const dir of searchPath.split(delimiter)) {
    if (!isAbsolute(dir)) continue;
    const candidate = join(dir, name);
    if (isExecutableFile(candidate)) return candidate;
  }
  return undefined;
}

function isExecutableFile(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}
