import { findOnPath, isExecutableFile } from '../../../core/find-on-path.ts';
import { closeSync, existsSync, openSync, readSync, realpathSync } from 'node:fs';
import { basename, dirname, isAbsolute, join } from 'node:path';
import { AgencyError } from '../../../core/errors.ts';
import { isWithin } from '../../../sandbox/sandbox-paths.ts';

/** An agent CLI found on this host: how to start it, and what the sandbox must show it read-only. */
export type CliInstall = {
  /** The real path of the CLI (its script, when it has an interpreter). */
  file: string;
  /** The argv that starts it: the CLI itself, or its interpreter and the script. */
  command: string[];
  /** Its package directory (or its own directory), and its interpreter when that lies outside the system dirs. */
  readOnlyPaths: string[];
};

/** Where to look for a CLI. */
export type ResolveCliOptions = {
  /** The CLI's name on PATH, e.g. `claude`. */
  name: string;
  /** An explicit path (the value of `CLAUDE_BIN`, `CODEX_BIN`), tried before PATH. */
  bin?: string | undefined;
  /** The environment variable `bin` came from, named in errors. */
  envVar: string;
  /** Where a bare name is looked up. @default process.env.PATH */
  searchPath?: string | undefined;
};

// Programs here are visible in every sandbox; anything else must be bound.
const SYSTEM_DIRS = ['/usr', '/bin', '/sbin', '/lib', '/lib64'];

/**
 * Finds a CLI from an explicit path or PATH and resolves symlinks, so the sandbox binds the real install (an npm
 * `.bin` link points into a package). A script's interpreter (`#!/usr/bin/env node`) is resolved on the same PATH
 * and put first in the argv, since the sandbox's own PATH may not reach it.
 *
 * @throws AgencyError `invalid_config` naming the variable to set when the CLI is missing or not executable.
 */
export function resolveCli({
  name,
  bin,
  envVar,
  searchPath = process.env['PATH'] ?? '',
}: ResolveCliOptions): CliInstall {
  const found = bin ? checkExecutable(bin, envVar) : lookUp(name, searchPath);
  if (found === undefined) {
    throw new AgencyError(
      'invalid_config',
      `${name} was not found on PATH. Fix: set ${envVar} to its path, put it on PATH, or install it with ` +
        '`bash scripts/ensure-agent-clis.sh` (into .agency-tools/).',
    );
  }
  const file = realpathSync(found);
  const install = installDirOf(file);
  const interpreter = interpreterOf(file, searchPath);
  if (interpreter === undefined) return { file, command: [file], readOnlyPaths: [install] };
  const bindInterpreter = !SYSTEM_DIRS.some((dir) => isWithin(interpreter.file, dir));
  return {
    file,
    command: [interpreter.file, ...interpreter.args, file],
    readOnlyPaths: bindInterpreter ? [install, interpreter.file] : [install],
  };
}

function checkExecutable(path: string, envVar: string): string {
  if (!isAbsolute(path)) {
    throw new AgencyError('invalid_config', `${envVar}=${JSON.stringify(path)} must be an absolute path.`);
  }
  if (!isExecutableFile(path)) {
    throw new AgencyError('invalid_config', `${envVar}=${JSON.stringify(path)} is not an executable file.`);
  }
  return path;
}

function lookUp(name: string, searchPath: string): string | undefined {
  return findOnPath(name, searchPath);
}

// An npm package's directory when the file lies in one under node_modules (its native parts and resources sit
// beside it); otherwise the file's own directory.
function installDirOf(file: string): string {
  for (let dir = dirname(file); dir !== dirname(dir); dir = dirname(dir)) {
    if (!dir.includes('/node_modules/')) break;
    if (existsSync(join(dir, 'package.json'))) return dir;
  }
  return dirname(file);
}

function interpreterOf(file: string, searchPath: string): { file: string; args: string[] } | undefined {
  const head = readHead(file);
  if (!head.startsWith('#!')) return undefined;
  const [program, ...args] = (head.slice(2).split('\n')[0] ?? '').trim().split(/\s+/);
  if (program === undefined || program === '') return undefined;
  if (basename(program) !== 'env') return { file: realpathSync(program), args };
  const [name, ...rest] = args.filter((arg) => arg !== '-S');
  const found = name === undefined ? undefined : lookUp(name, searchPath);
  if (found === undefined) {
    throw new AgencyError('invalid_config', `${file} runs with ${String(name)}, which is not on PATH.`);
  }
  return { file: realpathSync(found), args: rest };
}

function readHead(file: string): string {
  const fd = openSync(file, 'r');
  try {
    const buffer = Buffer.alloc(256);
    const read = readSync(fd, buffer, 0, buffer.length, 0);
    return buffer.toString('latin1', 0, read);
  } finally {
    closeSync(fd);
  }
}
