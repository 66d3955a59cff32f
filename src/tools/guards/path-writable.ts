import path from 'node:path';
import { refusal } from './path-refusal.ts';
import { isInsideRoot, type Scope } from './path-roots.ts';

/**
 * Refuses to write or create the real path `real` unless every root that contains it allows writes there (a root's
 * `writable` list; a root without one allows writes anywhere inside it). It is given resolved and kernel-reported
 * paths only, never the model's text, so a planted symlink or an odd spelling of the path cannot walk around it.
 */
export function checkWritable(scope: Scope, userPath: string, real: string): void {
  for (const root of scope.roots) {
    if (root.writable === undefined || !isInsideRoot(root.real, real)) continue;
    const relative = path.relative(root.real, real).split(path.sep).join('/');
    if (root.writable.some((entry) => relative === entry || relative.startsWith(`${entry}/`))) continue;
    const named = root.label === undefined ? relative : `${root.label}/${relative}`;
    const allowed = root.writable.map((entry) => (root.label === undefined ? entry : `${root.label}/${entry}`));
    throw refusal(
      'path_read_only',
      userPath,
      `resolves to ${JSON.stringify(named)}, which is read-only to tools`,
      `write only to ${allowed.join(', ')}`,
      { scope },
    );
  }
}
