import { errnoCode } from '../../core/errno.ts';
import { AgencyError } from '../../core/errors.ts';
import type { Scope } from './path-roots.ts';

/** The path error codes the guard raises. */
export type PathErrorCode =
  'path_outside_scope' | 'path_invalid' | 'path_symlink_escape' | 'path_not_found' | 'path_read_only';

const MAX_QUOTED = 120;

/** The model's path as it appears in messages: JSON-quoted so control characters show, and cut short if long. */
export function quotePath(userPath: string): string {
  const quoted = JSON.stringify(userPath);
  return quoted.length <= MAX_QUOTED ? quoted : `${quoted.slice(0, MAX_QUOTED - 2)}…" (${userPath.length} chars)`;
}

/**
 * A refusal that names the offending path, the problem and what to do instead:
 * `"../secrets" resolves outside the allowed roots (/x/task, /x/progress); use a path relative to a root`.
 */
export function refusal(
  code: PathErrorCode,
  userPath: string,
  problem: string,
  fix: string,
  options: { cause?: unknown; scope?: Scope } = {},
): AgencyError {
  const details: Record<string, unknown> = { path: userPath.length > 1024 ? `${userPath.slice(0, 1024)}…` : userPath };
  if (options.scope !== undefined) details['roots'] = options.scope.roots.map((root) => root.given);
  return new AgencyError(code, `${quotePath(userPath)} ${problem}; ${fix}`, { cause: options.cause, details });
}

/** The usual refusal for a path that lands outside every root. */
export function outsideScope(
  scope: Scope,
  userPath: string,
  problem = 'resolves outside the allowed roots',
): AgencyError {
  return refusal('path_outside_scope', userPath, `${problem} (${scope.display})`, 'use a path relative to a root', {
    scope,
  });
}

/** The refusal for a path that reaches a symlink whose target leaves the roots. */
export function symlinkEscape(scope: Scope, userPath: string, link: string, cause?: unknown): AgencyError {
  return refusal(
    'path_symlink_escape',
    userPath,
    `goes through the symlink "${link}", which points outside the allowed roots (${scope.display})`,
    'use the real file inside a root instead of the link',
    { scope, cause },
  );
}

/** The refusal for writing in place to a file that has other names, which may live outside the roots. */
export function hardLinkRefusal(userPath: string, nlink: number): AgencyError {
  return refusal(
    'path_invalid',
    userPath,
    `has ${nlink} hard links, so writing in place would change the other names too`,
    'write a new file or replace it atomically',
  );
}

/** Turns an unexpected fs error during resolution into a path refusal that keeps the errno. */
export function fsRefusal(userPath: string, cause: unknown): AgencyError {
  const code = errnoCode(cause) ?? 'unknown error';
  if (code === 'ENAMETOOLONG')
    return refusal('path_invalid', userPath, 'is too long for the file system', 'use a shorter path', { cause });
  if (code === 'ENOENT' || code === 'ENOTDIR') {
    return refusal(
      'path_not_found',
      userPath,
      'does not exist (it changed while being checked)',
      'check the name, e.g. with file_glob',
      { cause },
    );
  }
  if (code === 'ELOOP')
    return refusal('path_invalid', userPath, 'goes through a symlink loop', 'use a path without the loop', { cause });
  return refusal('path_not_found', userPath, `cannot be accessed (${code})`, 'use a file the agent can read', {
    cause,
  });
}
