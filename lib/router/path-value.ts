/*
 * Per-request routing results, kept in a lib/internal request slot
 * (docs/design.md §3: per-request values are read by accessors, Node's objects are
 * never patched). One entry per routed request holds the matched pattern
 * and the wildcard values, in the order of the pattern's names.
 */
import type { IncomingMessage } from "node:http";
import { requestSlot } from "../internal/index.ts";

interface MatchInfo {
  pattern: string;
  names: readonly string[];
  values: string[];
}

const matches = requestSlot<MatchInfo>();

/** Records the routing result of `req` (used by `Mux.ServeHTTP`). */
export function setMatch(req: IncomingMessage, pattern: string, names: readonly string[], values: string[]): void {
  matches.set(req, { pattern, names, values });
}

/**
 * Returns the value of the wildcard `name` in the pattern that matched
 * `req`, unescaped, or "" when there is no such wildcard (as Go's
 * `Request.PathValue`). Being unescaped, a value may contain "/" (sent as
 * `%2F`) or be ".." (sent as `%2e%2e`): never use one as a file path
 * without checking it.
 *
 * @example
 * mux.Handle("GET /jobs/{id}", (req, res) => { res.end(PathValue(req, "id")); });
 */
export function PathValue(req: IncomingMessage, name: string): string {
  const m = matches.get(req);
  if (m === undefined) return "";
  const i = m.names.indexOf(name);
  return i < 0 ? "" : (m.values[i] ?? "");
}

/** Sets the value `PathValue(req, name)` returns from now on (as Go's `Request.setPathValue`). */
export function setPathValue(req: IncomingMessage, name: string, value: string): void {
  let m = matches.get(req);
  if (m === undefined) {
    m = { pattern: "", names: [], values: [] };
    matches.set(req, m);
  }
  const i = m.names.indexOf(name);
  if (i >= 0) {
    m.values[i] = value;
    return;
  }
  // Copies: `names` is the route's own list and `values` may be shared.
  m.names = [...m.names, name];
  m.values = [...m.values, value];
}

/**
 * Returns the pattern that matched `req` as it was registered (Go's
 * `Request.Pattern`), or "" when no route matched. Useful in logs.
 */
export function Pattern(req: IncomingMessage): string {
  return matches.get(req)?.pattern ?? "";
}
