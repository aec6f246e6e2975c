import { readFileSync } from "node:fs";

/** The file limit assumed when `/proc/self/limits` cannot be read (a common soft default). */
export const FALLBACK_FILE_LIMIT: number = 1024;

/**
 * Reads the soft open-files limit of this process from `/proc/self/limits`
 * (Linux; Node has no getrlimit). "unlimited" reads as Infinity; anywhere
 * the file is missing or unreadable, FALLBACK_FILE_LIMIT.
 */
export function readFileLimit(text?: string): number {
  let limits = text;
  try {
    limits ??= readFileSync("/proc/self/limits", "utf8");
  } catch {
    return FALLBACK_FILE_LIMIT;
  }
  const m = /^Max open files\s+(\S+)/m.exec(limits);
  if (m?.[1] === undefined) return FALLBACK_FILE_LIMIT;
  if (m[1] === "unlimited") return Infinity;
  const soft = Number(m[1]);
  return Number.isSafeInteger(soft) && soft > 0 ? soft : FALLBACK_FILE_LIMIT;
}
