/*
 * Merging two edits of a Mergeable record made from the same base version (README "Mergeable merges"). Per field: a
 * side that left the base value unchanged yields to the other; equal edits agree; otherwise Text and Money conflict,
 * never last-writer-wins, and Textarea merges three-way by lines (diff3): the LCS of lines aligns each side with the
 * base, and each region between stable ones is resolved as a whole or, when every side replaced the same number of
 * lines one for one, line by line.
 */

/**
 * The largest LCS table a line merge builds (base lines × the longer side's lines); bigger texts edited on both sides
 * are a conflict. 250 000 cells (500 × 500 lines): what one costs is in README "Mergeable merges" (bench-merge.ts).
 */
export const MERGE_CELLS: number = 250_000;

/**
 * Line merges one person may make per resource: 20 a minute. A merge is synchronous work on the event loop, so past the
 * limit an update that needs one is refused (429 with Retry-After); people editing by hand merge a few times an hour.
 * Counted in memory by latch's one limiter (a restart forgets them).
 */
export const MERGE_RATE: Readonly<{ Max: number; Window: number }> = Object.freeze({ Max: 20, Window: 60 * 1000 });

/** Reports whether merging this field needs a line merge (both sides changed a Textarea differently), the work MERGE_RATE bounds. */
export function needsLineMerge(kind: string, base: FieldValue, mine: FieldValue, theirs: FieldValue): boolean {
  return kind === "textarea" && mine !== base && mine !== theirs && theirs !== base;
}

/**
 * A field value. Stored (the table, events, forms): text, a number (an amount's minor units, a whole number, a yes/no's
 * 1 or 0), or null when empty. `MountedResource.Store` and the tools give and take `valueOut`'s shape instead
 * (values.ts): an amount as a decimal string, a yes/no as a boolean.
 */
export type FieldValue = string | number | boolean | null;

/** The outcome of merging one field. */
export type FieldMerge = { ok: true; value: FieldValue } | { ok: false };

/** Merges one field given its kind; see the file header. */
export function mergeField(kind: string, base: FieldValue, mine: FieldValue, theirs: FieldValue): FieldMerge {
  if (mine === base || mine === theirs) return { ok: true, value: theirs };
  if (theirs === base) return { ok: true, value: mine };
  if (needsLineMerge(kind, base, mine, theirs) && typeof base === "string" && typeof mine === "string" && typeof theirs === "string") {
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
  // Lines become numbers first, so filling the table compares numbers, never long lines character by character.
  const ids = new Map<string, number>();
  const numbered = (lines: string[]): number[] =>
    lines.map((line) => {
      const id = ids.get(line) ?? ids.size;
      ids.set(line, id);
      return id;
    });
  const on = numbered(o);
  const ma = matches(on, numbered(a));
  const mb = matches(on, numbered(b));
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
// The table is one flat array: the LCS of o[i..] and s[j..] at i·(m+1)+j, at most MERGE_CELLS cells.
function matches(o: readonly number[], s: readonly number[]): (number | undefined)[] {
  const n = o.length;
  const m = s.length;
  const w = m + 1;
  const lcs = new Uint32Array((n + 1) * w);
  const at = (i: number, j: number): number => lcs[i * w + j] as number;
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) lcs[i * w + j] = o[i] === s[j] ? at(i + 1, j + 1) + 1 : Math.max(at(i + 1, j), at(i, j + 1));
  }
  const pairs: (number | undefined)[] = new Array<number | undefined>(n).fill(undefined);
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (o[i] === s[j]) {
      pairs[i] = j;
      i++;
      j++;
    } else if (at(i + 1, j) >= at(i, j + 1)) i++;
    else j++;
  }
  return pairs;
}
