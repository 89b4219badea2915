/** Side-by-side alignment of two texts by lines: Myers' shortest edit script over the lines. */

export interface DiffLine {
  /** 1-based line number in its own text. */
  number: number;
  text: string;
  changed: boolean;
}

/** One row of the side-by-side view; a side is missing where the other text has extra lines. */
export interface DiffRow {
  before?: DiffLine;
  after?: DiffLine;
}

/** Beyond this many edits the middle is shown as replaced wholesale (the trace grows with its square). */
const MAX_EDITS = 1_000;

/** Whether step d reached diagonal k by a move down (from k + 1) rather than right (from k - 1). */
const movedDown = (furthest: (k: number) => number, d: number, k: number) => k === -d || (k !== d && furthest(k - 1) < furthest(k + 1));

/** Pairs [i, j] of equal lines (before[i] === after[j]) on a shortest edit path, in order; null past MAX_EDITS. */
function matchingLines(before: string[], after: string[]): [number, number][] | null {
  const n = before.length;
  const m = after.length;
  const limit = Math.min(n + m, MAX_EDITS);
  const offset = limit + 1;
  // v[offset + k]: the furthest x reached on diagonal k = x - y. trace[d] keeps k in [-d, d] as step d found them.
  const v = new Int32Array(2 * limit + 3);
  const furthest = (k: number) => v[offset + k];
  const trace: Int32Array[] = [];
  for (let d = 0; d <= limit; d++) {
    trace.push(v.slice(offset - d, offset + d + 1));
    for (let k = -d; k <= d; k += 2) {
      let x = movedDown(furthest, d, k) ? furthest(k + 1) : furthest(k - 1) + 1;
      let y = x - k;
      while (x < n && y < m && before[x] === after[y]) {
        x++;
        y++;
      }
      v[offset + k] = x;
      if (x >= n && y >= m) return backtrack(trace, n, m);
    }
  }
  return null;
}

function backtrack(trace: Int32Array[], n: number, m: number): [number, number][] {
  const pairs: [number, number][] = [];
  let x = n;
  let y = m;
  for (let d = trace.length - 1; d > 0; d--) {
    const window = trace[d];
    const furthest = (k: number) => window[k + d];
    const k = x - y;
    const previousK = movedDown(furthest, d, k) ? k + 1 : k - 1;
    const previousX = furthest(previousK);
    const previousY = previousX - previousK;
    while (x > previousX && y > previousY) pairs.push([--x, --y]);
    x = previousX;
    y = previousY;
  }
  while (x > 0 && y > 0) pairs.push([--x, --y]);
  return pairs.reverse();
}

/** The rows of a side-by-side view: equal lines side by side, removed and added lines paired up in between. */
export function alignLines(before: string[], after: string[]): DiffRow[] {
  let start = 0;
  while (start < before.length && start < after.length && before[start] === after[start]) start++;
  let endBefore = before.length;
  let endAfter = after.length;
  while (endBefore > start && endAfter > start && before[endBefore - 1] === after[endAfter - 1]) {
    endBefore--;
    endAfter--;
  }
  const middle = matchingLines(before.slice(start, endBefore), after.slice(start, endAfter)) ?? [];
  const pairs: [number, number][] = [];
  for (let i = 0; i < start; i++) pairs.push([i, i]);
  for (const [i, j] of middle) pairs.push([i + start, j + start]);
  for (let i = endBefore, j = endAfter; i < before.length; i++, j++) pairs.push([i, j]);

  const rows: DiffRow[] = [];
  const line = (texts: string[], index: number, changed: boolean): DiffLine => ({ number: index + 1, text: texts[index], changed });
  let i = 0;
  let j = 0;
  const changedUpTo = (toBefore: number, toAfter: number) => {
    while (i < toBefore || j < toAfter) {
      rows.push({ before: i < toBefore ? line(before, i++, true) : undefined, after: j < toAfter ? line(after, j++, true) : undefined });
    }
  };
  for (const [bi, aj] of pairs) {
    changedUpTo(bi, aj);
    rows.push({ before: line(before, i++, false), after: line(after, j++, false) });
  }
  changedUpTo(before.length, after.length);
  return rows;
}
