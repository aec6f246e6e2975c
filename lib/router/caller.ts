/*
 * Where a route was registered: the first stack frame outside this
 * module's own files, as "path:line", so that a conflict names both
 * registration sites (STYLE.md §5). The site is captured once per `Handle`
 * call (an Error: V8 records its frames) and formatted only when a
 * conflict is reported: formatting every route's stack cost a cold start
 * several milliseconds for messages that are almost never written.
 */
import { fileURLToPath } from "node:url";

const OWN_DIR = fileURLToPath(new URL(".", import.meta.url));

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

/** Captures the current call site, to be described by `siteLocation` when needed. */
export function captureSite(): Error {
  return new Error("route registered here");
}

/** Returns "path:line" of the code that called into the router at `site`, or "unknown location". */
export function siteLocation(site: Error): string {
  const stack = site.stack ?? "";
  for (const frame of stack.split("\n").slice(1)) {
    if (frame.includes(OWN_DIR) || frame.includes("node:internal")) continue;
    const loc = frameLocation(frame);
    if (loc !== undefined && !loc.startsWith(OWN_DIR)) return loc;
  }
  return "unknown location";
}
