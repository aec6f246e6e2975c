/*
 * Summarizes a V8 `.cpuprofile` (written by `node --cpu-prof`): self time
 * per function (name, file, line), its share of the busy (non-idle) samples, and
 * the same aggregated per file, so a run's hot spots can be read without
 * a profiler UI. `npm run bench` with BENCH_PROFILE=<dir> profiles the
 * latch servers and prints these summaries.
 *
 * Usage: node dist/scripts/bench-profile.js <file.cpuprofile> [top]
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

/** Self time of one function or file. */
export interface HotSpot {
  name: string;
  /** Share of all samples, 0..1. */
  share: number;
  ms: number;
}

/** The summary of one profile. */
export interface ProfileSummary {
  totalMs: number;
  functions: HotSpot[];
  files: HotSpot[];
}

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}

function isProfile(v: unknown): v is { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[] } {
  return (
    typeof v === "object" &&
    v !== null &&
    "nodes" in v &&
    "samples" in v &&
    "timeDeltas" in v &&
    Array.isArray(v.nodes) &&
    Array.isArray(v.samples) &&
    Array.isArray(v.timeDeltas)
  );
}

const ROOT_URL = new URL("../../", import.meta.url).href;

function shortFile(url: string): string {
  if (url === "") return "(native)";
  return url.startsWith(ROOT_URL) ? url.slice(ROOT_URL.length) : url.replace(/^file:\/\//, "");
}

function top(map: Map<string, number>, total: number, n: number): HotSpot[] {
  return [...map.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .map(([name, us]) => ({ name, ms: Math.round(us / 100) / 10, share: total === 0 ? 0 : us / total }));
}

/** Reads `path` and returns the `n` functions and files with the most self time. */
export function summarizeProfile(path: string, n = 15): ProfileSummary {
  const parsed: unknown = JSON.parse(readFileSync(path, "utf8"));
  if (!isProfile(parsed)) throw new Error(`bench profile: ${path} is not a .cpuprofile`);
  const byId = new Map(parsed.nodes.map((node) => [node.id, node]));
  const fn = new Map<string, number>();
  const file = new Map<string, number>();
  let total = 0;
  parsed.samples.forEach((id, i) => {
    const us = parsed.timeDeltas[i] ?? 0;
    const frame = byId.get(id)?.callFrame;
    // Idle samples are the time the process waited: not part of any request's cost.
    if (frame === undefined || frame.functionName === "(idle)") return;
    total += us;
    const where = shortFile(frame.url);
    const key = `${frame.functionName || "(anonymous)"} ${where}${frame.url === "" ? "" : `:${frame.lineNumber + 1}`}`;
    fn.set(key, (fn.get(key) ?? 0) + us);
    file.set(where, (file.get(where) ?? 0) + us);
  });
  return { totalMs: Math.round(total / 1000), functions: top(fn, total, n), files: top(file, total, n) };
}

/** Formats a summary as two plain-text lists. */
export function formatProfile(summary: ProfileSummary): string {
  const line = (h: HotSpot): string => `  ${(h.share * 100).toFixed(1).padStart(5)}%  ${String(h.ms).padStart(8)} ms  ${h.name}`;
  return [
    `self time, ${summary.totalMs} ms busy (idle excluded); top functions:`,
    ...summary.functions.map(line),
    "top files:",
    ...summary.files.map(line),
  ].join("\n");
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [path, n] = process.argv.slice(2);
  if (path === undefined) throw new Error("usage: bench-profile.js <file.cpuprofile> [top]");
  process.stdout.write(formatProfile(summarizeProfile(path, n === undefined ? 15 : Number(n))) + "\n");
}
