/*
 * A Logger that keeps every line in memory, so a test can assert what was
 * logged (and what was not).
 */
import type { Attrs, Logger } from "../../lib/http/index.ts";

/** One captured log line. */
export interface LogLine {
  level: string;
  msg: string;
  attrs: Attrs;
}

/** Returns a logger and the array its lines are appended to. */
export function captureLogger(): { logger: Logger; lines: LogLine[] } {
  const lines: LogLine[] = [];
  const make = (base: Attrs): Logger => {
    const write = (level: string) => (msg: string, attrs: Attrs = {}): void => {
      lines.push({ level, msg, attrs: { ...base, ...attrs } });
    };
    return { debug: write("debug"), info: write("info"), warn: write("warn"), error: write("error"), with: (a) => make({ ...base, ...a }) };
  };
  return { logger: make({}), lines };
}
