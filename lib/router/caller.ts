/*
 * Where a route was registered: the first stack frame outside this
 * module's own files, as "path:line". Taken once per `Handle` call, at
 * startup, so that a conflict names both registration sites (STYLE.md §5).
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

/** Returns "path:line" of the code that called into the router, or "unknown location". */
export function callerLocation(): string {
  const stack = new Error("callerLocation").stack ?? "";
  for (const frame of stack.split("\n").slice(1)) {
    if (frame.includes(OWN_DIR) || frame.includes("node:internal")) continue;
    const loc = frameLocation(frame);
    if (loc !== undefined && !loc.startsWith(OWN_DIR)) return loc;
  }
  return "unknown location";
}
