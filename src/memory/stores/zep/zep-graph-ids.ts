import { isScopeKind, type MemoryScope } from '../../memory-store.ts';

/**
 * One Zep graph per scope: `<prefix>-<kind>-<hex of the id's UTF-8>`, so any scope id (colons, spaces, unicode)
 * gives a graph id of letters, digits and dashes, and the scope can be read back from it.
 */
export function graphIdOf(prefix: string, scope: MemoryScope): string {
  return `${prefix}-${scope.kind}-${Buffer.from(scope.id, 'utf8').toString('hex')}`;
}

/** The scope a graph id of {@link graphIdOf} names, or undefined for a graph this store did not make. */
export function scopeOfGraphId(prefix: string, graphId: string): MemoryScope | undefined {
  const match = new RegExp(`^${prefix}-([a-z]+)-((?:[0-9a-f]{2})+)$`).exec(graphId);
  if (match === null || !isScopeKind(match[1])) return undefined;
  const scope = { kind: match[1], id: Buffer.from(match[2] as string, 'hex').toString('utf8') };
  return graphIdOf(prefix, scope) === graphId ? scope : undefined;
}
