/** One line of a diff: kept (` `), removed (`-`) or added (`+`). */
export type DiffLine = { op: ' ' | '-' | '+'; text: string };

// The longest-common-subsequence table holds (n+1)·(m+1) cells; past this many, the changed middle is shown as
// removed then added whole, which is still a correct diff, only not the shortest.
const MAX_CELLS = 4_000_000;

/**
 * A plain line diff of two texts: the lines both keep, in order, and the lines removed from `a` and added in `b`
 * (a longest common subsequence of lines, after the common first and last lines are set aside). A final newline ends
 * the last line rather than starting an empty one.
 * @example
 * diffLines('a\nb\n', 'a\nc\n'); // [{op:' ',text:'a'}, {op:'-',text:'b'}, {op:'+',text:'c'}]
 */
export function diffLines(a: string, b: string): DiffLine[] {
  const left = linesOf(a);
  const right = linesOf(b);
  let start = 0;
  while (start < left.length && start < right.length && left[start] === right[start]) start++;
  let end = 0;
  while (
    end < left.length - start &&
    end < right.length - start &&
    left[left.length - 1 - end] === right[right.length - 1 - end]
  )
    end++;
  const same = (lines: string[]): DiffLine[] => lines.map((text) => ({ op: ' ', text }));
  return [
    ...same(left.slice(0, start)),
    ...middle(left.slice(start, left.length - end), right.slice(start, right.length - end)),
    ...same(left.slice(left.length - end)),
  ];
}

function linesOf(text: string): string[] {
  if (text === '') return [];
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  return lines;
}

function middle(a: string[], b: string[]): DiffLine[] {
  const n = a.length;
  const m = b.length;
  if ((n + 1) * (m + 1) > MAX_CELLS) {
    return [...a.map((text) => ({ op: '-' as const, text })), ...b.map((text) => ({ op: '+' as const, text }))];
  }
  // lcs[i][j]: the longest common subsequence of a[i..] and b[j..].
  const width = m + 1;
  const lcs = new Uint32Array((n + 1) * width);
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      lcs[i * width + j] =
        a[i] === b[j]
          ? (lcs[(i + 1) * width + j + 1] as number) + 1
          : Math.max(lcs[(i + 1) * width + j] as number, lcs[i * width + j + 1] as number);
    }
  }
  const out: DiffLine[] = [];
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (a[i] === b[j]) {
      out.push({ op: ' ', text: a[i++] as string });
      j++;
    } else if ((lcs[(i + 1) * width + j] as number) >= (lcs[i * width + j + 1] as number)) {
      out.push({ op: '-', text: a[i++] as string });
    } else {
      out.push({ op: '+', text: b[j++] as string });
    }
  }
  while (i < n) out.push({ op: '-', text: a[i++] as string });
  while (j < m) out.push({ op: '+', text: b[j++] as string });
  return out;
}
