import type { ResolvedPath } from '../guards/path-resolve.ts';

/** How a resolved path is shown back to the model: prefixed with its root's label, so it can be passed back as is. */
export function displayPath(resolved: Pick<ResolvedPath, 'label' | 'relative'>): string {
  if (resolved.label === undefined) return resolved.relative;
  return resolved.relative === '' ? `${resolved.label}/` : `${resolved.label}/${resolved.relative}`;
}
