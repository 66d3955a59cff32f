// Dot products of one query with many rows, for brute-force vector search. A small WebAssembly module does them
// four floats at a time (SIMD), about three times faster than a JavaScript loop; where WebAssembly SIMD is missing
// the same loop runs in JavaScript. The module is hand-assembled from this text (WebAssembly text format):
//
// (module
//   (memory (export "memory") 1)
//   ;; out[r] = dot(matrix row r, query) for r < rows; rows are `dims` floats, dims a multiple of 4 (zero-padded)
//   (func (export "dots") (param $m i32) (param $q i32) (param $rows i32) (param $dims i32) (param $out i32)
//     (local $r i32) (local $rowEnd i32) (local $qp i32) (local $acc v128)
//     (block $done
//       (br_if $done (i32.eqz (local.get $rows)))
//       (loop $row
//         (local.set $acc (v128.const i64x2 0 0))
//         (local.set $qp (local.get $q))
//         (local.set $rowEnd (i32.add (local.get $m) (i32.mul (local.get $dims) (i32.const 4))))
//         (loop $col
//           (local.set $acc (f32x4.add (local.get $acc)
//             (f32x4.mul (v128.load (local.get $m)) (v128.load (local.get $qp)))))
//           (local.set $qp (i32.add (local.get $qp) (i32.const 16)))
//           (br_if $col (i32.lt_u (local.tee $m (i32.add (local.get $m) (i32.const 16))) (local.get $rowEnd))))
//         (f32.store (local.get $out) (f32.add (f32.add (f32.add
//           (f32x4.extract_lane 0 (local.get $acc)) (f32x4.extract_lane 1 (local.get $acc)))
//           (f32x4.extract_lane 2 (local.get $acc))) (f32x4.extract_lane 3 (local.get $acc))))
//         (local.set $out (i32.add (local.get $out) (i32.const 4)))
//         (br_if $row (i32.lt_u (local.tee $r (i32.add (local.get $r) (i32.const 1))) (local.get $rows))))))
// )
const DOTS_WASM =
  'AGFzbQEAAAABCQFgBX9/f39/AAMCAQAFAwEAAQcRAgZtZW1vcnkCAARkb3RzAAAKkQEBjgECA38BewJAIAJFDQADQP0MAAAAAAAAAAAAAAAAAAAAACEIIAEhByAAIANBBGxqIQYDQCAIIAD9AAQAIAf9AAQA/eYB/eQBIQggAEEQaiIAIAdBEGohByAGSQ0ACyAEIAj9HwAgCP0fAZIgCP0fApIgCP0fA5I4AgAgBEEEaiEEIAVBAWoiBSACSQ0ACwsL';

/** Float32 storage for rows and a way to score them all against a query. */
export type DotKernel = {
  /** The rows' floats: `capacity × stride`; a new view after every {@link DotKernel.reserve}. */
  readonly matrix: Float32Array;
  /** Makes room for `rows` rows of `stride` floats (kept), returning the new matrix. */
  reserve(rows: number, stride: number): Float32Array;
  /** The dot product of `query` (`stride` floats) with each of the first `rows` rows. */
  dots(query: Float32Array, rows: number, stride: number): Float32Array;
};

const PAGE = 65_536;

/** A kernel on WebAssembly SIMD where the runtime has it, else on a JavaScript loop. */
export function createDotKernel(): DotKernel {
  const bytes = new Uint8Array(new ArrayBuffer(atob(DOTS_WASM).length));
  bytes.set(Array.from(atob(DOTS_WASM), (c) => c.charCodeAt(0)));
  if (typeof WebAssembly === 'object' && WebAssembly.validate(bytes)) return wasmKernel(bytes);
  return jsKernel();
}

function wasmKernel(bytes: Uint8Array<ArrayBuffer>): DotKernel {
  const instance = new WebAssembly.Instance(new WebAssembly.Module(bytes));
  const memory = instance.exports.memory as WebAssembly.Memory;
  const run = instance.exports.dots as (m: number, q: number, rows: number, dims: number, out: number) => void;
  let capacityBytes = 0;
  let matrix = new Float32Array(memory.buffer, 0, 0);
  const ensure = (total: number) => {
    if (total > memory.buffer.byteLength) memory.grow(Math.ceil((total - memory.buffer.byteLength) / PAGE));
  };
  return {
    get matrix() {
      return matrix;
    },
    reserve(rows, stride) {
      capacityBytes = rows * stride * 4;
      ensure(capacityBytes);
      matrix = new Float32Array(memory.buffer, 0, rows * stride);
      return matrix;
    },
    dots(query, rows, stride) {
      const queryAt = capacityBytes;
      const outAt = queryAt + stride * 4;
      ensure(outAt + rows * 4);
      matrix = new Float32Array(memory.buffer, 0, capacityBytes / 4);
      new Float32Array(memory.buffer, queryAt, stride).set(query);
      run(0, queryAt, rows, stride, outAt);
      return new Float32Array(memory.buffer, outAt, rows);
    },
  };
}

function jsKernel(): DotKernel {
  let matrix = new Float32Array(0);
  return {
    get matrix() {
      return matrix;
    },
    reserve(rows, stride) {
      const grown = new Float32Array(rows * stride);
      grown.set(matrix.subarray(0, Math.min(matrix.length, grown.length)));
      matrix = grown;
      return matrix;
    },
    dots(query, rows, stride) {
      const out = new Float32Array(rows);
      for (let r = 0, base = 0; r < rows; r++, base += stride) {
        let sum = 0;
        for (let i = 0; i < stride; i++) sum += (matrix[base + i] as number) * (query[i] as number);
        out[r] = sum;
      }
      return out;
    },
  };
}

/** The JavaScript kernel, for tests that compare it with the WebAssembly one. */
export const createJsDotKernel = jsKernel;
