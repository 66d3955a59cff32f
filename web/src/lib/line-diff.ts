/** One line of a unified diff. `before` and `after` are 1-based line numbers in each side. */
export type DiffLine =
  | { kind: 'same'; text: string; before: number; after: number }
  | { kind: 'removed'; text: string; before: number }
  | { kind: 'added'; text: string; after: number };

/** A run of unchanged lines folded away between hunks. */
export type DiffGap = { kind: 'gap'; lines: number };

// Plans are a few hundred lines; past this the table would be large, so the diff falls back to replace-all.
const MAX_CELLS = 4_000_000;

/** A line diff of two texts (longest common subsequence), every line of both in order. */
export function diffLines(before: string, after: string): DiffLine[] {
  const a = before.split('\n');
  const b = after.split('\n');
  if (a.length * b.length > MAX_CELLS) return replaceAll(a, b);
  // lcs[i][j]: length of the common subsequence of a[i..] and b[j..], in one flat array.
  const width = b.length + 1;
  const lcs = new Uint32Array((a.length + 1) * width);
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      lcs[i * width + j] =
        a[i] === b[j]
          ? (lcs[(i + 1) * width + j + 1] ?? 0) + 1
          : Math.max(lcs[(i + 1) * width + j] ?? 0, lcs[i * width + j + 1] ?? 0);
    }
  }
  const out: DiffLine[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j]) {
      out.push({ kind: 'same', text: a[i] ?? '', before: i + 1, after: j + 1 });
      i++;
      j++;
    } else if (j < b.length && (i >= a.length || (lcs[i * width + j + 1] ?? 0) >= (lcs[(i + 1) * width + j] ?? 0))) {
      out.push({ kind: 'added', text: b[j] ?? '', after: j + 1 });
      j++;
    } else {
      out.push({ kind: 'removed', text: a[i] ?? '', before: i + 1 });
      i++;
    }
  }
  return orderRemovalsFirst(out);
}

/** Folds unchanged runs longer than `context` lines on each side of a change into gaps. */
export function foldUnchanged(lines: readonly DiffLine[], context = 3): Array<DiffLine | DiffGap> {
  const near = new Array<boolean>(lines.length).fill(false);
  lines.forEach((line, index) => {
    if (line.kind === 'same') return;
    for (let k = Math.max(0, index - context); k <= Math.min(lines.length - 1, index + context); k++) near[k] = true;
  });
  const out: Array<DiffLine | DiffGap> = [];
  let hidden = 0;
  lines.forEach((line, index) => {
    if (near[index]) {
      if (hidden > 0) out.push({ kind: 'gap', lines: hidden });
      hidden = 0;
      out.push(line);
    } else hidden++;
  });
  if (hidden > 0) out.push({ kind: 'gap', lines: hidden });
  return out;
}

// Within one changed block, show what went before what came in, as unified diffs do.
function orderRemovalsFirst(lines: DiffLine[]): DiffLine[] {
  const out: DiffLine[] = [];
  let added: DiffLine[] = [];
  for (const line of lines) {
    if (line.kind === 'added') added.push(line);
    else if (line.kind === 'removed') out.push(line);
    else {
      out.push(...added, line);
      added = [];
    }
  }
  return [...out, ...added];
}

function replaceAll(a: readonly string[], b: readonly string[]): DiffLine[] {
  return [
    ...a.map((text, index): DiffLine => ({ kind: 'removed', text, before: index + 1 })),
    ...b.map((text, index): DiffLine => ({ kind: 'added', text, after: index + 1 })),
  ];
}
