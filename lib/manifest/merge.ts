/*
 * Merging two edits of a Mergeable record made from the same base version.
 * Per field: a side that left the base value unchanged yields to the other;
 * equal edits agree; otherwise the field kind decides. Text and Money are
 * single values: two different edits are a conflict for a person to
 * resolve, never last-writer-wins, never a sum. Textarea merges three-way
 * by lines (diff3): edits to separate lines both survive, overlapping edits
 * are a conflict.
 *
 * diff3 here: the longest common subsequence of lines aligns each side
 * with the base; regions where both sides still match the base are
 * stable, and between them each unstable region is resolved as a whole
 * (one side unchanged, or both equal) or, when every side replaced the
 * same number of lines one for one, line by line, so edits of adjacent
 * lines merge too.
 */

/**
 * The largest LCS table a line merge builds (base lines × the longer
 * side's lines); bigger texts edited on both sides are a conflict for the
 * person to resolve. 250 000 cells (500 × 500 lines) bounds the synchronous
 * work of one update to about 10 ms (measured on the dev machine under
 * load: 500 lines ~10 ms, 1 000 ~40 ms, 2 000 ~170 ms, the old 4 000 000).
 */
export const MERGE_CELLS: number = 250_000;

/** A field value: text, or minor units (null for an empty amount). */
export type FieldValue = string | number | null;

/** The outcome of merging one field. */
export type FieldMerge = { ok: true; value: FieldValue } | { ok: false };

/** Merges one field given its kind; see the file header. */
export function mergeField(kind: string, base: FieldValue, mine: FieldValue, theirs: FieldValue): FieldMerge {
  if (mine === base || mine === theirs) return { ok: true, value: theirs };
  if (theirs === base) return { ok: true, value: mine };
  if (kind === "textarea" && typeof base === "string" && typeof mine === "string" && typeof theirs === "string") {
    const merged = mergeLines(base, mine, theirs);
    return merged === undefined ? { ok: false } : { ok: true, value: merged };
  }
  return { ok: false };
}

/** Merges two edits of `base` line by line; undefined when they overlap. */
export function mergeLines(base: string, mine: string, theirs: string): string | undefined {
  const o = base.split("\n");
  const a = mine.split("\n");
  const b = theirs.split("\n");
  // The LCS table is |o|·|side| cells: past MERGE_CELLS the merge is declined (a conflict), never slow.
  if (o.length * Math.max(a.length, b.length) > MERGE_CELLS) return undefined;
  const ma = matches(o, a);
  const mb = matches(o, b);
  const out: string[] = [];
  let i = 0;
  let x = 0;
  let y = 0;
  while (i < o.length || x < a.length || y < b.length) {
    let k = 0;
    while (i + k < o.length && ma[i + k] === x + k && mb[i + k] === y + k) k++;
    if (k > 0) {
      out.push(...o.slice(i, i + k));
      i += k;
      x += k;
      y += k;
      continue;
    }
    let j = i;
    while (j < o.length && (ma[j] === undefined || mb[j] === undefined)) j++;
    const endA = j < o.length ? (ma[j] as number) : a.length;
    const endB = j < o.length ? (mb[j] as number) : b.length;
    const chunk = resolve(o.slice(i, j), a.slice(x, endA), b.slice(y, endB));
    if (chunk === undefined) return undefined;
    out.push(...chunk);
    i = j;
    x = endA;
    y = endB;
  }
  return out.join("\n");
}

function same(p: readonly string[], q: readonly string[]): boolean {
  return p.length === q.length && p.every((line, n) => line === q[n]);
}

function resolve(o: string[], a: string[], b: string[]): string[] | undefined {
  if (same(a, o) || same(a, b)) return b;
  if (same(b, o)) return a;
  if (o.length === a.length && o.length === b.length) {
    const lines: string[] = [];
    for (let n = 0; n < o.length; n++) {
      const [lo, la, lb] = [o[n] as string, a[n] as string, b[n] as string];
      if (la !== lo && lb !== lo && la !== lb) return undefined;
      lines.push(la === lo ? lb : la);
    }
    return lines;
  }
  return undefined;
}

// For each line of `o`, the index of the line of `s` the LCS pairs it with (undefined when unpaired).
function matches(o: readonly string[], s: readonly string[]): (number | undefined)[] {
  const n = o.length;
  const m = s.length;
  const lcs: number[][] = Array.from({ length: n + 1 }, () => new Array<number>(m + 1).fill(0));
  for (let i = n - 1; i >= 0; i--) {
    const row = lcs[i] as number[];
    const below = lcs[i + 1] as number[];
    for (let j = m - 1; j >= 0; j--)
      row[j] = o[i] === s[j] ? (below[j + 1] as number) + 1 : Math.max(below[j] as number, row[j + 1] as number);
  }
  const pairs: (number | undefined)[] = new Array<number | undefined>(n).fill(undefined);
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (o[i] === s[j]) {
      pairs[i] = j;
      i++;
      j++;
    } else if (((lcs[i + 1] as number[])[j] as number) >= ((lcs[i] as number[])[j + 1] as number)) i++;
    else j++;
  }
  return pairs;
}
