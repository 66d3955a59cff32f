import { createDotKernel, type DotKernel } from './vector-dots.ts';

/** A row found by meaning, with its cosine similarity to the query. */
export type VectorHit = { rowId: number; similarity: number };

/**
 * Unit vectors of one model held in one Float32Array, searched by brute force: every vector of the wanted scopes is
 * compared with the query (a dot product, since vectors are unit length). Stores keep it in step with their rows
 * and search it in process; it holds no entry text.
 */
export type VectorIndex = {
  readonly size: number;
  readonly dimensions: number | undefined;
  upsert(rowId: number, scope: string, vector: Float32Array): void;
  remove(rowId: number): void;
  /** The `limit` most similar rows of `scopes` with a similarity of at least `minSimilarity`, most similar first. */
  search(query: Float32Array, scopes: readonly string[], limit: number, minSimilarity: number): VectorHit[];
};

/** Creates an empty {@link VectorIndex}; its dimensions are those of the first vector put in. */
export function createVectorIndex(kernel: DotKernel = createDotKernel()): VectorIndex {
  let dims: number | undefined;
  let stride = 0;
  let capacity = 0;
  const rows: number[] = [];
  const scopeOfSlot: number[] = [];
  const slotOf = new Map<number, number>();
  const free: number[] = [];
  const scopeIds = new Map<string, number>();

  const slotFor = (rowId: number): number => {
    const known = slotOf.get(rowId);
    if (known !== undefined) return known;
    const slot = free.pop() ?? rows.length;
    if (slot >= capacity) {
      capacity = Math.max(1024, capacity * 2);
      kernel.reserve(capacity, stride);
    }
    rows[slot] = rowId;
    slotOf.set(rowId, slot);
    return slot;
  };

  return {
    get size() {
      return slotOf.size;
    },
    get dimensions() {
      return dims;
    },
    upsert(rowId, scope, vector) {
      if (dims === undefined) {
        dims = vector.length;
        stride = Math.ceil(dims / 4) * 4;
      }
      if (vector.length !== dims) throw new RangeError(`vector has ${vector.length} dimensions, the index ${dims}`);
      const slot = slotFor(rowId);
      kernel.matrix.set(vector, slot * stride);
      let scopeId = scopeIds.get(scope);
      if (scopeId === undefined) scopeIds.set(scope, (scopeId = scopeIds.size));
      scopeOfSlot[slot] = scopeId;
    },
    remove(rowId) {
      const slot = slotOf.get(rowId);
      if (slot === undefined) return;
      slotOf.delete(rowId);
      rows[slot] = -1;
      scopeOfSlot[slot] = -1;
      free.push(slot);
    },
    search(query, scopes, limit, minSimilarity) {
      if (dims === undefined || query.length !== dims || limit <= 0 || rows.length === 0) return [];
      const wanted = new Set(scopes.map((scope) => scopeIds.get(scope)).filter((id) => id !== undefined));
      if (wanted.size === 0) return [];
      const padded = new Float32Array(stride);
      padded.set(query);
      const similarities = kernel.dots(padded, rows.length, stride);
      const hits: VectorHit[] = [];
      let floor = minSimilarity;
      for (let slot = 0; slot < rows.length; slot++) {
        const similarity = similarities[slot] as number;
        if (similarity < floor || !wanted.has(scopeOfSlot[slot] as number)) continue;
        insertHit(hits, { rowId: rows[slot] as number, similarity }, limit);
        if (hits.length === limit) floor = Math.max(floor, (hits.at(-1) as VectorHit).similarity);
      }
      return hits;
    },
  };
}

function insertHit(hits: VectorHit[], hit: VectorHit, limit: number): void {
  let at = hits.length;
  while (at > 0 && (hits[at - 1] as VectorHit).similarity < hit.similarity) at--;
  if (at >= limit) return;
  hits.splice(at, 0, hit);
  if (hits.length > limit) hits.pop();
}
