import { realpathSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, posix } from 'node:path';
import { AgencyError } from '../core/errors.ts';
import { DEFAULT_SANDBOX_PATH, type FileMount, type WrapOptions } from './sandbox.ts';
import { type ResolvedSandboxLimits, resolveSandboxLimits } from './sandbox-limits.ts';

// Writable binds inside these would let a sandboxed command change the host system or reach host sockets.
const SYSTEM_TREES = ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32', '/etc', '/boot', '/proc', '/sys'];
const FORBIDDEN_WRITABLE_TREES = [...SYSTEM_TREES, '/dev', '/run'];
// Writable as a whole, these expose far more than one task's files; their subdirectories are fine.
const FORBIDDEN_WRITABLE_EXACT = [
  '/',
  '/home',
  '/root',
  '/tmp',
  '/var',
  '/var/tmp',
  '/var/lib',
  '/opt',
  '/srv',
  '/mnt',
];
// Paths the bwrap sandbox mounts itself; a file mount there would fail or shadow them.
const SANDBOX_OWNED_TREES = [...SYSTEM_TREES, '/dev'];
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Wrap options after validation: real paths, a complete environment, every limit. */
export type ResolvedWrapOptions = {
  workdir: string;
  readOnlyPaths: string[];
  readWritePaths: string[];
  allowNetwork: boolean;
  env: Record<string, string>;
  fileMounts: FileMount[];
  limits: ResolvedSandboxLimits;
};

/**
 * Validates wrap options and resolves every host path to its real path, so a symlink cannot turn a harmless-looking
 * path into a writable `/`. Throws AgencyError `invalid_argument` naming the field and the fix.
 */
export function resolveWrapOptions(options: WrapOptions, home: string = homedir()): ResolvedWrapOptions {
  const workdir = resolveHostPath(options.workdir, 'workdir', true);
  assertWritable(workdir, 'workdir', home);
  const readWritePaths = (options.readWritePaths ?? []).map((path, i) => {
    const real = resolveHostPath(path, `readWritePaths[${i}]`, false);
    assertWritable(real, `readWritePaths[${i}]`, home);
    return real;
  });
  const readOnlyPaths = (options.readOnlyPaths ?? []).map((path, i) => {
    const real = resolveHostPath(path, `readOnlyPaths[${i}]`, false);
    if (real === '/') throw invalid(`readOnlyPaths[${i}]`, path, 'must not be /; bind specific directories instead');
    return real;
  });
  const bound = [workdir, ...readWritePaths, ...readOnlyPaths, ...SANDBOX_OWNED_TREES];
  const fileMounts = resolveFileMounts(options.fileMounts ?? [], bound);
  return {
    workdir,
    readOnlyPaths,
    readWritePaths,
    allowNetwork: options.allowNetwork ?? false,
    env: resolveEnv(options.env ?? {}),
    fileMounts,
    limits: resolveSandboxLimits(options.limits),
  };
}

/** Checks that `path` is a string, absolute, and free of NUL bytes. */
export function assertAbsolutePath(path: unknown, field: string): asserts path is string {
  if (typeof path !== 'string' || path === '') throw invalid(field, path, 'must be a non-empty absolute path');
  if (path.includes('\0')) throw invalid(field, path, 'must not contain NUL bytes');
  if (!isAbsolute(path)) throw invalid(field, path, 'must be absolute; the harness decides it, never the model');
}

/** Checks that `command` is a non-empty list of strings without NUL bytes; it runs without a shell. */
export function assertCommand(command: unknown): asserts command is readonly string[] {
  if (!Array.isArray(command) || command.length === 0 || command[0] === '') {
    throw new AgencyError('invalid_argument', 'sandbox command must be a non-empty array such as ["make", "test"].');
  }
  const bad = command.findIndex((arg) => typeof arg !== 'string' || arg.includes('\0'));
  if (bad !== -1)
    throw new AgencyError('invalid_argument', `sandbox command[${bad}] must be a string without NUL bytes.`);
}

/** True when `path` is `parent` or inside it (separator-aware: `/a/bc` is not inside `/a/b`). */
export function isWithin(path: string, parent: string): boolean {
  return path === parent || path.startsWith(parent === '/' ? '/' : `${parent}/`);
}

function resolveHostPath(path: unknown, field: string, mustBeDirectory: boolean): string {
  assertAbsolutePath(path, field);
  let real: string;
  try {
    real = realpathSync(path);
  } catch (cause) {
    throw invalid(field, path, 'does not exist; create it before running the command', cause);
  }
  if (mustBeDirectory && !statSync(real).isDirectory()) throw invalid(field, path, 'must be a directory');
  return real;
}

function assertWritable(real: string, field: string, home: string): void {
  const tree = FORBIDDEN_WRITABLE_TREES.find((root) => isWithin(real, root));
  if (tree !== undefined) throw invalid(field, real, `must not be writable: it is inside the system directory ${tree}`);
  if (FORBIDDEN_WRITABLE_EXACT.includes(real) || real === home) {
    throw invalid(field, real, 'must not be writable as a whole; use a dedicated subdirectory');
  }
}

function resolveFileMounts(mounts: readonly FileMount[], bound: readonly string[]): FileMount[] {
  const seen = new Set<string>();
  return mounts.map((mount, i) => {
    const field = `fileMounts[${i}].path`;
    assertAbsolutePath(mount.path, field);
    assertAbsolutePath(mount.hostPath, `fileMounts[${i}].hostPath`);
    if (posix.normalize(mount.path) !== mount.path || mount.path === '/' || mount.path.endsWith('/')) {
      throw invalid(field, mount.path, 'must be a normalized file path without "..", "." or a trailing slash');
    }
    const clash = bound.find((root) => isWithin(mount.path, root) || isWithin(root, mount.path));
    if (clash !== undefined) {
      throw invalid(field, mount.path, `must lie outside ${clash}; use a path such as /run/secrets/<name>`);
    }
    if (seen.has(mount.path)) throw invalid(field, mount.path, 'is used twice');
    seen.add(mount.path);
    return { hostPath: mount.hostPath, path: mount.path };
  });
}

function resolveEnv(env: Readonly<Record<string, string>>): Record<string, string> {
  const out: Record<string, string> = { PATH: DEFAULT_SANDBOX_PATH };
  for (const [name, value] of Object.entries(env)) {
    if (!ENV_NAME.test(name)) throw invalid(`env.${name}`, name, 'must be a name like MY_VAR');
    if (typeof value !== 'string' || value.includes('\0')) {
      throw invalid(`env.${name}`, '<value>', 'must be a string without NUL bytes');
    }
    out[name] = value;
  }
  return out;
}

function invalid(field: string, value: unknown, problem: string, cause?: unknown): AgencyError {
  const shown = typeof value === 'string' ? JSON.stringify(value) : String(value);
  return new AgencyError('invalid_argument', `sandbox ${field} ${shown} ${problem}.`, {
    cause,
    details: { field },
  });
}
