import { lstatSync, readlinkSync } from 'node:fs';

/** How the sandbox recreates one top-level system directory: bound read-only, or as the same symlink. */
export type SystemMount = { kind: 'ro-bind'; path: string } | { kind: 'symlink'; path: string; target: string };

/** What a host path is, as far as {@link detectSystemMounts} cares. */
export type HostEntry = { type: 'directory' } | { type: 'symlink'; target: string } | { type: 'other' | 'missing' };

const SYSTEM_DIRS = ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32'];

/**
 * The files under `/etc` bound read-only when they exist: name resolution, TLS roots, the dynamic linker's cache,
 * users and groups, and Debian's `/etc/alternatives` (many `/usr/bin` commands link there). Not the rest of `/etc`,
 * which holds host secrets such as `/etc/shadow` and SSH host keys.
 */
export const DEFAULT_ETC_PATHS: readonly string[] = [
  '/etc/alternatives',
  '/etc/ca-certificates',
  '/etc/crypto-policies',
  '/etc/gai.conf',
  '/etc/group',
  '/etc/host.conf',
  '/etc/hosts',
  '/etc/ld.so.cache',
  '/etc/ld.so.conf',
  '/etc/ld.so.conf.d',
  '/etc/localtime',
  '/etc/mime.types',
  '/etc/nsswitch.conf',
  '/etc/os-release',
  '/etc/passwd',
  '/etc/pki',
  '/etc/protocols',
  '/etc/resolv.conf',
  '/etc/services',
  '/etc/ssl',
];

/**
 * Reads the host's layout of `/usr`, `/bin`, `/sbin` and `/lib*`. On merged-usr distributions `/bin` is a symlink
 * to `usr/bin`; the sandbox gets the same symlink instead of a second bind, so paths resolve as on the host.
 *
 * @example
 * detectSystemMounts() // [{ kind: 'ro-bind', path: '/usr' }, { kind: 'symlink', path: '/bin', target: 'usr/bin' }, …]
 */
export function detectSystemMounts(inspect: (path: string) => HostEntry = inspectHostPath): SystemMount[] {
  const mounts: SystemMount[] = [];
  for (const path of SYSTEM_DIRS) {
    const entry = inspect(path);
    if (entry.type === 'directory') mounts.push({ kind: 'ro-bind', path });
    else if (entry.type === 'symlink') mounts.push({ kind: 'symlink', path, target: entry.target });
  }
  return mounts;
}

/** Describes a host path without following a final symlink. */
export function inspectHostPath(path: string): HostEntry {
  try {
    const stat = lstatSync(path);
    if (stat.isSymbolicLink()) return { type: 'symlink', target: readlinkSync(path) };
    return { type: stat.isDirectory() ? 'directory' : 'other' };
  } catch {
    return { type: 'missing' };
  }
}
