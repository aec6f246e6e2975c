/*
 * Where a route was registered, as "path:line", so that a conflict names
 * both sites (STYLE.md §5): an Error captured per `Handle` call, its stack
 * cut at the public `Handle` (bundled into one file, the router's frames
 * could not be told apart by file), formatted only for a conflict (every
 * route's cost a cold start several milliseconds).
 */
import { fileURLToPath } from "node:url";

function frameLocation(frame: string): string | undefined {
  // "    at fn (file:///x/y.js:12:5)" or "    at file:///x/y.js:12:5"
  const open = frame.lastIndexOf("(");
  let loc = (open >= 0 ? frame.slice(open + 1, frame.lastIndexOf(")")) : frame.replace(/^\s*at\s+/, "")).trim();
  if (loc.startsWith("file://")) {
    try {
      const col = loc.lastIndexOf(":");
      const line = loc.lastIndexOf(":", col - 1);
      loc = fileURLToPath(loc.slice(0, line)) + loc.slice(line, col);
    } catch {
      return loc;
    }
  } else {
    const col = loc.lastIndexOf(":");
    if (col > 0 && /^\d+$/.test(loc.slice(col + 1))) loc = loc.slice(0, col);
  }
  return loc === "" ? undefined : loc;
}

/** Captures the call site of `entry` (the `Handle` the caller called), to be described by `siteLocation` when needed. */
export function captureSite(entry: (...args: never[]) => unknown): Error {
  const site = new Error("route registered here");
  Error.captureStackTrace(site, entry);
  return site;
}

/** Returns "path:line" of the code that called into the router at `site`, or "unknown location". */
export function siteLocation(site: Error): string {
  const stack = site.stack ?? "";
  for (const frame of stack.split("\n").slice(1)) {
    if (frame.includes("node:internal")) continue;
    const loc = frameLocation(frame);
    if (loc !== undefined) return loc;
  }
  return "unknown location";
}
