/* Locale prefixes of origin-form targets (RFC 9112 §3.2.1), pure: `/fr/x?q=1` is `/x` in `fr`, if `fr` is declared. */
import { findDeclared } from "./locale-code.ts";

/** A request target split at its locale prefix. */
export interface PrefixSplit {
  /** The declared code named by the first path segment, if any. */
  code: string | undefined;
  /** The path without the prefix (always starting with "/"). */
  path: string;
  /** The query including its "?", or "". */
  query: string;
}

/** Splits a request target into locale prefix, path and query. */
export function splitLocalePrefix(target: string, codes: readonly string[]): PrefixSplit {
  if (!target.startsWith("/")) return { code: undefined, path: "/", query: "" };
  const q = target.indexOf("?");
  const path = q < 0 ? target : target.slice(0, q);
  const query = q < 0 ? "" : target.slice(q);
  const slash = path.indexOf("/", 1);
  const segment = slash < 0 ? path.slice(1) : path.slice(1, slash);
  const code = segment === "" ? undefined : findDeclared(codes, segment);
  if (code === undefined) return { code: undefined, path, query };
  return { code, path: slash < 0 ? "/" : path.slice(slash), query };
}
