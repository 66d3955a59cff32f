import { createHash } from 'node:crypto';
import { AgencyError } from '../core/errors.ts';

/** Separates the server name from the tool name in a namespaced tool name: `server__tool`. */
export const NAME_SEPARATOR = '__';

const MAX_NAME = 64;
const MAX_SERVER_NAME = 32;
const SERVER_NAME = /^[a-zA-Z0-9][a-zA-Z0-9_-]*$/;
const UNSAFE = /[^a-zA-Z0-9_-]/g;
const HASH_CHARS = 6;

/**
 * Checks a server name used as a tool-name prefix. It must be 1-32 letters, digits, `_` or `-`, start with a letter
 * or digit, and not contain `__`, so the first `__` of a namespaced name always ends the server part and two
 * servers with different names can never produce the same tool name.
 * @throws AgencyError `invalid_argument` naming the fix.
 */
export function checkServerName(name: unknown): string {
  if (
    typeof name !== 'string' ||
    name.length > MAX_SERVER_NAME ||
    !SERVER_NAME.test(name) ||
    name.includes(NAME_SEPARATOR) ||
    name.endsWith('_')
  ) {
    throw new AgencyError(
      'invalid_argument',
      `MCP server name ${JSON.stringify(name)} is not usable as a tool-name prefix: use 1-${MAX_SERVER_NAME} letters, ` +
        'digits, "_" or "-", starting with a letter or digit, without "__" and not ending in "_" (e.g. "filesystem")',
      { details: { field: 'name' } },
    );
  }
  return name;
}

/**
 * Gives every tool of one server its agency name, `server__tool`, within the `[a-zA-Z0-9_-]{1,64}` that agency
 * and the model providers accept.
 *
 * - Characters outside that set become `_` (`files.read` → `fs__files_read`).
 * - A name longer than 64 characters is cut and ends in `_` plus 6 hex digits of the SHA-256 of the server's own
 *   tool name, so it is stable and distinct.
 * - When two tools would get the same name, a tool whose name needed no change keeps it; each of the others gets
 *   the hash suffix. Names depend only on the set of tools, not on the order the server lists them in.
 *
 * @returns a map from the server's tool name to the agency tool name. A tool that still collides (a hash clash, in
 * practice never) is left out, and the caller reports it as skipped.
 */
export function assignToolNames(server: string, toolNames: readonly string[]): Map<string, string> {
  const prefix = `${server}${NAME_SEPARATOR}`;
  const candidates = new Map<string, string>();
  for (const original of new Set(toolNames)) candidates.set(original, plainName(prefix, original));
  const claims = new Map<string, string[]>();
  for (const [original, candidate] of candidates) claims.set(candidate, [...(claims.get(candidate) ?? []), original]);
  const named = new Map<string, string>();
  for (const [candidate, originals] of claims) {
    for (const original of originals) {
      const exact = prefix + original === candidate;
      named.set(original, originals.length === 1 || exact ? candidate : hashedName(prefix, original));
    }
  }
  const taken = new Set<string>();
  const out = new Map<string, string>();
  for (const [original, name] of [...named].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    if (taken.has(name)) continue;
    taken.add(name);
    out.set(original, name);
  }
  return out;
}

function plainName(prefix: string, original: string): string {
  const name = prefix + (original.replace(UNSAFE, '_') || '_');
  return name.length <= MAX_NAME ? name : hashedName(prefix, original);
}

function hashedName(prefix: string, original: string): string {
  const hash = createHash('sha256').update(original).digest('hex').slice(0, HASH_CHARS);
  const room = MAX_NAME - prefix.length - hash.length - 1;
  return `${prefix}${(original.replace(UNSAFE, '_') || '_').slice(0, room)}_${hash}`;
}
