/* Reading catalogs: one flat JSON object of strings; anything else is refused at startup, the file named. */
import { readFileSync } from "node:fs";
import { I18nError } from "./errors.ts";

/** A parsed catalog: key to message. */
export type MessageMap = ReadonlyMap<string, string>;

/** Validates an untrusted value as a flat string-to-string catalog. */
export function toMessageMap(value: unknown, source: string): Map<string, string> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new I18nError("ERR_I18N_CATALOG_INVALID", `load catalog ${source}: not a JSON object`);
  }
  const out = new Map<string, string>();
  for (const [key, message] of Object.entries(value) as [string, unknown][]) {
    if (typeof message !== "string") {
      throw new I18nError("ERR_I18N_CATALOG_INVALID", `load catalog ${source}: value of ${JSON.stringify(key)} is not a string`);
    }
    out.set(key, message);
  }
  return out;
}

/**
 * Reads a catalog file, or returns `undefined` when it does not exist.
 * Throws `ERR_I18N_CATALOG_UNREADABLE` for any other read failure.
 */
export function readOptionalCatalog(path: string): Map<string, string> | undefined {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (cause) {
    if (cause instanceof Error && "code" in cause && cause.code === "ENOENT") return undefined;
    throw new I18nError("ERR_I18N_CATALOG_UNREADABLE", `load catalog ${path}: cannot read`, { cause });
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (cause) {
    throw new I18nError("ERR_I18N_CATALOG_INVALID", `load catalog ${path}: invalid JSON`, { cause });
  }
  return toMessageMap(value, path);
}

/** Reads a catalog file that must exist. Throws `ERR_I18N_CATALOG_UNREADABLE` or `ERR_I18N_CATALOG_INVALID`. */
export function readCatalog(path: string): Map<string, string> {
  const map = readOptionalCatalog(path);
  if (map === undefined) throw new I18nError("ERR_I18N_CATALOG_UNREADABLE", `load catalog ${path}: file not found`);
  return map;
}
