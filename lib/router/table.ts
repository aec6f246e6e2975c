/*
 * The method level of the routing tree, for one host: a segment tree per
 * method token, plus one ("" key) for method-less patterns. A request tries
 * its own method, then GET when it is a HEAD, then the method-less tree;
 * that order is most-specific-first because a method pattern that overlaps
 * a method-less one without being more specific is refused as a conflict.
 */
import { Node, insertRoute, matchPath, type Route } from "./tree.ts";

/** The trees of one host, keyed by method. */
export class RouteTable {
  #trees = new Map<string, Node>();

  /** Adds a route (conflicts already refused). */
  insert(route: Route): void {
    const method = route.pattern.method;
    let root = this.#trees.get(method);
    if (root === undefined) {
      root = new Node();
      this.#trees.set(method, root);
    }
    insertRoute(root, route);
  }

  /** Returns the most specific route for a method and a clean path; wildcard values go to `out`. */
  match(method: string, path: string, decode: boolean, out: string[]): Route | undefined {
    let root = this.#trees.get(method);
    if (root !== undefined) {
      const r = matchPath(root, path, 0, decode, out, 0);
      if (r !== undefined) return r;
    }
    if (method === "HEAD") {
      root = this.#trees.get("GET");
      if (root !== undefined) {
        const r = matchPath(root, path, 0, decode, out, 0);
        if (r !== undefined) return r;
      }
    }
    root = this.#trees.get("");
    return root === undefined ? undefined : matchPath(root, path, 0, decode, out, 0);
  }

  /**
   * Adds to `into` every method whose tree matches `path` or, for a path
   * without a trailing slash, `path + "/"` (the redirect target); GET
   * brings HEAD. Used only to build a 405's `Allow`.
   */
  collectMethods(path: string, decode: boolean, out: string[], into: Set<string>): void {
    const slashed = path.endsWith("/") ? undefined : path + "/";
    for (const [method, root] of this.#trees) {
      if (method === "") continue;
      const hit =
        matchPath(root, path, 0, decode, out, 0) !== undefined ||
        (slashed !== undefined && matchPath(root, slashed, 0, decode, out, 0) !== undefined);
      if (!hit) continue;
      into.add(method);
      if (method === "GET") into.add("HEAD");
    }
  }
}
