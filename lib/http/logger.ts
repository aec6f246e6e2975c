/*
 * Structured logging: one JSON object per line on stderr, or, on a terminal,
 * the same record for a person (a multi-line value on its own indented
 * lines, so a link can be clicked). Callers redact before logging
 * (docs/design.md §5: secrets are never logged).
 */
import type { Writable } from "node:stream";

/** Log severity, in increasing order. */
export type Level = "debug" | "info" | "warn" | "error";

/** Attributes attached to a log line. */
export type Attrs = Readonly<Record<string, unknown>>;

/** A structured logger. */
export interface Logger {
  debug(msg: string, attrs?: Attrs): void;
  info(msg: string, attrs?: Attrs): void;
  warn(msg: string, attrs?: Attrs): void;
  error(msg: string, attrs?: Attrs): void;
  /** Returns a logger that adds `attrs` to every line. */
  with(attrs: Attrs): Logger;
}

/** Options of `newLogger`. */
export interface LoggerOptions {
  /** Where lines go. @default process.stderr */
  stream?: Writable;
  /** Lines below this level are dropped. @default "info" */
  level?: Level;
  /** `"json"` for machines, `"text"` for a person. @default "text" when the stream is a TTY, else "json" */
  format?: LogFormat;
}

/** How a log line is written. */
export type LogFormat = "json" | "text";

const RANK: Readonly<Record<Level, number>> = { debug: 0, info: 1, warn: 2, error: 3 };

/**
 * Creates a logger writing JSON lines.
 *
 * @example
 * const log = newLogger({ level: "debug" });
 * log.info("listening", { addr: ":8080" });
 */
export function newLogger(options: LoggerOptions = {}): Logger {
  const stream = options.stream ?? process.stderr;
  const min = RANK[options.level ?? "info"];
  const tty = "isTTY" in stream && stream.isTTY === true;
  const format = options.format ?? (tty ? "text" : "json");
  return createLogger(stream, min, format === "text" ? formatText : serialize, {});
}

function createLogger(stream: Writable, min: number, format: (line: Attrs) => string, base: Attrs): Logger {
  const write = (level: Level, msg: string, attrs?: Attrs): void => {
    if (RANK[level] < min) return;
    const line = { time: new Date().toISOString(), level, msg, ...base, ...attrs };
    stream.write(format(line) + "\n");
  };
  return {
    debug: (msg, attrs) => write("debug", msg, attrs),
    info: (msg, attrs) => write("info", msg, attrs),
    warn: (msg, attrs) => write("warn", msg, attrs),
    error: (msg, attrs) => write("error", msg, attrs),
    with: (attrs) => createLogger(stream, min, format, { ...base, ...attrs }),
  };
}

// A log call must never throw: a panic value with a cycle would otherwise
// escape panic recovery and kill the process. An attribute that does not
// serialize is replaced by a marker; the others (the ref) are kept.
function serialize(line: Attrs): string {
  try {
    return JSON.stringify(line, replaceErrors);
  } catch {
    const safe = Object.entries(line).map(([key, value]) => [key, serializeValue(value) === UNSERIALIZABLE ? UNSERIALIZABLE : value]);
    return JSON.stringify(Object.fromEntries(safe), replaceErrors);
  }
}

// One line for a person: local time, level, message, then key=value pairs;
// a value spanning lines (an email body, a stack) follows on indented lines.
function formatText(line: Attrs): string {
  const { time, level, msg, ...attrs } = line;
  const clock = new Date(String(time)).toTimeString().slice(0, 8);
  let head = `${clock} ${String(level).toUpperCase().padEnd(5)} ${String(msg)}`;
  let tail = "";
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined) continue;
    const text =
      value instanceof Error
        ? (value.stack ?? `${value.name}: ${value.message}`)
        : typeof value === "string"
          ? value
          : serializeValue(value);
    if (text.includes("\n")) tail += `\n  ${key}:\n` + text.replace(/^/gm, "    ");
    else head += ` ${key}=${typeof value !== "string" || /^[^\s"=]+$/.test(text) ? text : JSON.stringify(text)}`;
  }
  return head + tail;
}

const UNSERIALIZABLE = "[unserializable]";

function serializeValue(value: unknown): string {
  try {
    return JSON.stringify(value, replaceErrors);
  } catch {
    return UNSERIALIZABLE;
  }
}

// Errors serialize as {} by default; keep what an operator needs.
function replaceErrors(_key: string, value: unknown): unknown {
  if (value instanceof Error) {
    const code = "code" in value ? value.code : undefined;
    return { name: value.name, message: value.message, code, stack: value.stack };
  }
  if (typeof value === "bigint") return value.toString();
  return value;
}

/** A logger that drops everything; for tests that assert nothing about logs. */
export const discardLogger: Logger = {
  debug: () => {},
  info: () => {},
  warn: () => {},
  error: () => {},
  with: () => discardLogger,
};
