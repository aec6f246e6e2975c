/*
 * The segment tree a path is matched against (one per host and method):
 * one Map lookup per segment, so the cost depends on the path's length,
 * never on the number of routes. Literals are tried before the wildcard
 * with backtracking, which picks the most specific route because
 * conflicting patterns are refused at registration (compare.ts).
 */
import type { HandlerFunc } from "../http/index.ts";
import { SEG_END, SEG_LITERAL, SEG_MULTI, SEG_WILD, type ParsedPattern } from "./pattern.ts";

/** A registered pattern with its composed handler. */
export interface Route {
  /** The parsed pattern. */
  readonly pattern: ParsedPattern;
  /** The handler with its group middleware already composed. */
  readonly handler: HandlerFunc;
  /** Where `Handle` was called (`siteLocation` makes it "file:line"), for conflict messages. */
  readonly where: Error;
}

/** One node of the segment tree. */
export class Node {
  /** Children by unescaped literal segment. */
  statics: Map<string, Node> | undefined = undefined;
  /** Child for a `{name}` wildcard. */
  wild: Node | undefined = undefined;
  /** Route whose pattern ends here with `{name...}` or a trailing slash. */
  multi: Route | undefined = undefined;
  /** Route whose pattern ends here with `{$}`. */
  end: Route | undefined = undefined;
  /** Route whose pattern ends exactly here. */
  exact: Route | undefined = undefined;
}

/** Adds a route to the tree under `root`; the caller has already refused conflicts. */
export function insertRoute(root: Node, route: Route): void {
  let node = root;
  for (const seg of route.pattern.segments) {
    if (seg.kind === SEG_LITERAL) {
      node.statics ??= new Map();
      let child = node.statics.get(seg.value);
      if (child === undefined) {
        child = new Node();
        node.statics.set(seg.value, child);
      }
      node = child;
    } else if (seg.kind === SEG_WILD) {
      node.wild ??= new Node();
      node = node.wild;
    } else if (seg.kind === SEG_MULTI) {
      node.multi = route;
      return;
    } else if (seg.kind === SEG_END) {
      node.end = route;
      return;
    }
  }
  node.exact = route;
}

function segmentAt(path: string, from: number, to: number, decode: boolean): string {
  const s = path.slice(from, to);
  return decode && s.includes("%") ? decodeURIComponent(s) : s;
}

/**
 * Matches a clean, rooted, escaped path (its percent-encoding already
 * validated) below `node`. Wildcard values are written to `out` from index
 * `depth`; the route's own `names` say how many were written.
 */
export function matchPath(node: Node, path: string, i: number, decode: boolean, out: string[], depth: number): Route | undefined {
  const n = path.length;
  if (i === n) return node.exact;
  if (i === n - 1) {
    // A trailing slash: only {$} or a rest-of-path wildcard (with "") matches.
    if (node.end !== undefined) return node.end;
    if (node.multi !== undefined && node.multi.pattern.names.length > depth) out[depth] = "";
    return node.multi;
  }
  let j = path.indexOf("/", i + 1);
  if (j < 0) j = n;
  let seg: string | undefined;
  if (node.statics !== undefined) {
    seg = segmentAt(path, i + 1, j, decode);
    const child = node.statics.get(seg);
    if (child !== undefined) {
      const r = matchPath(child, path, j, decode, out, depth);
      if (r !== undefined) return r;
    }
  }
  if (node.wild !== undefined) {
    out[depth] = seg ?? segmentAt(path, i + 1, j, decode);
    const r = matchPath(node.wild, path, j, decode, out, depth + 1);
    if (r !== undefined) return r;
  }
  const multi = node.multi;
  if (multi !== undefined && multi.pattern.names.length > depth) {
    out[depth] = segmentAt(path, i + 1, n, decode);
  }
  return multi;
}

/**
 * Reports whether `route` matched `path` exactly: not through a non-empty
 * rest-of-path wildcard. Decides the redirect from `/tree` to `/tree/`.
 */
export function isExactMatch(route: Route | undefined, path: string): boolean {
  if (route === undefined) return false;
  const segs = route.pattern.segments;
  if (segs[segs.length - 1]?.kind !== SEG_MULTI) return true;
  if (!path.endsWith("/")) return false;
  let slashes = 0;
  for (let k = 0; k < path.length; k++) if (path.charCodeAt(k) === 47) slashes++;
  return slashes === segs.length;
}
