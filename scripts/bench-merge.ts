/*
 * What one worst-case Mergeable line merge costs (lib/manifest/merge.ts),
 * for the number in lib/manifest/README.md: two edits of a Textarea at the
 * MERGE_CELLS bound (500 × 500 lines), both changed all over so the LCS
 * table is filled, with short lines and with long lines that differ only
 * at their end. Prints the median and worst of 30 runs per case, in CPU
 * time of this process (so other load on the machine counts less than in
 * wall time); not a test (no threshold), run by hand:
 *
 *   node dist/scripts/bench-merge.js
 */
import { MERGE_CELLS, mergeLines } from "../lib/manifest/merge.ts";

const side = Math.floor(Math.sqrt(MERGE_CELLS));

function text(lines: number, width: number, tag: string, every: number): string {
  const pad = "x".repeat(Math.max(0, width - 8));
  return Array.from({ length: lines }, (_, i) => `${pad}${i % every === 0 ? tag : "o"}${String(i).padStart(6, "0")}`).join("\n");
}

function measure(name: string, base: string, mine: string, theirs: string): void {
  const times: number[] = [];
  for (let run = 0; run < 30; run++) {
    const start = process.cpuUsage();
    mergeLines(base, mine, theirs);
    const used = process.cpuUsage(start);
    times.push((used.user + used.system) / 1000);
  }
  times.sort((a, b) => a - b);
  const ms = (t: number | undefined): string => (t ?? 0).toFixed(1);
  console.log(`${name}: median ${ms(times[15])} ms, worst ${ms(times[29])} ms (${base.length} characters)`);
}

for (const width of [10, 100]) {
  measure(
    `${side} × ${side} lines of ${width} characters`,
    text(side, width, "o", 2),
    text(side, width, "a", 2),
    text(side, width, "b", 3),
  );
}
