/*
 * Mux: an HTTP request router with Go 1.22 ServeMux semantics. Per request
 * the path is read out of the target by hand (no regular expression, no
 * `new URL` but for a rare absolute-form target's host), and nothing is
 * allocated beyond the path and the wildcard values. Differences from Go:
 * lib/router/README.md.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { HandlerFunc, Middleware } from "../http/index.ts";
import { bindRouteCheck, needsRoutes, routeNeedsOf, type RouteNeed } from "../internal/index.ts";
import { captureSite, siteLocation } from "./caller.ts";
import { composeChain } from "./chain.ts";
import { cleanPath, isCleanPath } from "./clean-path.ts";
import { compareMethods, comparePaths, describeConflict } from "./compare.ts";
import { RouterError } from "./errors.ts";
import { setMatch } from "./path-value.ts";
import { parsePattern, SEG_LITERAL } from "./pattern.ts";
import { writeBadRequest, writeMethodNotAllowed, writeMovedPermanently, writeNotFound } from "./respond.ts";
import { RouteTable } from "./table.ts";
import { absolutePathStart, encodeLocation, isValidEscaping } from "./target.ts";
import { isExactMatch, type Route } from "./tree.ts";

/** Routes registered with shared middleware; obtained from `Mux.With`. */
export interface Group {
  /** Registers `handler` for `pattern` on the Mux, wrapped in this group's middleware (outer-first). */
  Handle(pattern: string, handler: HandlerFunc): void;
  /** Returns a group that adds `middleware` inside this group's own. */
  With(...middleware: Middleware[]): Group;
}

type Register = (pattern: string, handler: HandlerFunc, middleware: readonly Middleware[], where: Error) => void;

class RouteGroup implements Group {
  readonly #register: Register;
  readonly #middleware: readonly Middleware[];

  constructor(register: Register, middleware: readonly Middleware[]) {
    this.#register = register;
    this.#middleware = middleware;
  }

  Handle(pattern: string, handler: HandlerFunc): void {
    this.#register(pattern, handler, this.#middleware, captureSite(this.Handle));
  }

  With(...middleware: Middleware[]): Group {
    return new RouteGroup(this.#register, [...this.#middleware, ...middleware]);
  }
}

/** Why a request matched no route, and what the answer needs. */
type Miss =
  | { readonly kind: "not-found" }
  | { readonly kind: "bad-request" }
  | { readonly kind: "redirect"; readonly location: string }
  | { readonly kind: "not-allowed"; readonly allow: string };

// The two misses without data are shared; the others allocate, on a miss only.
const NOT_FOUND: Miss = { kind: "not-found" };
const BAD_REQUEST: Miss = { kind: "bad-request" };
const NO_VALUES: string[] = [];

function answer(miss: Miss, res: ServerResponse): void {
  if (miss.kind === "redirect") writeMovedPermanently(res, miss.location);
  else if (miss.kind === "not-allowed") writeMethodNotAllowed(res, miss.allow);
  else if (miss.kind === "bad-request") writeBadRequest(res);
  else writeNotFound(res);
}

const plainNotFound: HandlerFunc = (_req, res) => writeNotFound(res);

function isMiss(found: Route | Miss): found is Miss {
  return "kind" in found;
}

function hostOf(req: IncomingMessage): string {
  const h = req.headers.host ?? "";
  // RFC 9110 §7.2: Host = uri-host [ ":" port ]; an IPv6 literal keeps its brackets.
  const end = h.startsWith("[") ? h.indexOf("]") + 1 : h.indexOf(":");
  return (end > 0 ? h.slice(0, end) : h).toLowerCase();
}

/**
 * An HTTP request multiplexer with Go 1.22 `ServeMux` patterns:
 * `[METHOD ][HOST]/[PATH]` with `{name}`, `{name...}` and `{$}` wildcards.
 * The most specific pattern wins whatever the registration order; patterns
 * that overlap with neither more specific are refused when registered.
 * A GET pattern also answers HEAD. No match: 405 with `Allow` when another
 * method matches the path, else 404 (plain text, or the `NotFound` handler).
 *
 * @example
 * const mux = new Mux();
 * mux.Handle("GET /jobs/{id}", (req, res) => { res.end(PathValue(req, "id")); });
 * mux.With(RequireSession).Handle("POST /jobs/{id}/cancel", cancelJob);
 * http.createServer(mux.ServeHTTP).listen(8080);
 */
export class Mux {
  #any = new RouteTable();
  #hosts = new Map<string, RouteTable>();
  #routes: Route[] = [];
  // Scratch space: matching is synchronous, so one buffer per Mux is enough.
  #values: string[] = [];
  #probe: string[] = [];
  #notFound: HandlerFunc = plainNotFound;
  // The handlers that need routes (lib/internal route-needs.ts), whose needs the runtime checks at boot.
  #needers = new Set<object>();

  /** Registers `handler` for `pattern`; throws `ERR_ROUTER_INVALID_PATTERN`, `ERR_ROUTER_CONFLICT` (naming both sites) or `ERR_ROUTER_INVALID_HANDLER`. */
  Handle(pattern: string, handler: HandlerFunc): void {
    this.#register(pattern, handler, [], captureSite(this.Handle));
  }

  /** Returns a group whose routes run `middleware` (first outermost), composed once at registration. */
  With(...middleware: Middleware[]): Group {
    return new RouteGroup((p, h, mw, where) => this.#register(p, h, mw, where), middleware);
  }

  /**
   * Sets the handler of a request no pattern matches for any method (the
   * application's 404 page, which sets the status itself); a path another
   * method matches still answers 405, which a catch-all `Handle("/", ...)`
   * would turn into 404. Throws `ERR_ROUTER_INVALID_HANDLER` or `ERR_ROUTER_CONFLICT` (one is set).
   */
  NotFound(handler: HandlerFunc): void {
    if (typeof handler !== "function") throw new RouterError("ERR_ROUTER_INVALID_HANDLER", "NotFound: handler is not a function");
    if (this.#notFound !== plainNotFound) throw new RouterError("ERR_ROUTER_CONFLICT", "NotFound: a not-found handler is already set");
    this.#notFound = handler;
  }

  /** Dispatches a request; a bound property, so it can be passed to `http.createServer` as is. */
  readonly ServeHTTP: HandlerFunc = (req, res) => {
    const found = this.#find(req);
    if (found === NOT_FOUND) return this.#notFound(req, res);
    if (isMiss(found)) return answer(found, res);
    const n = found.pattern.names.length;
    setMatch(req, found.pattern.str, found.pattern.names, n === 0 ? NO_VALUES : this.#values.slice(0, n));
    return found.handler(req, res);
  };

  /** The handler `ServeHTTP` would run for `req` and the pattern it matches ("" for a 404, 405, 400 or redirect), running nothing. */
  Handler(req: IncomingMessage): [handler: HandlerFunc, pattern: string] {
    const found = this.#find(req);
    if (found === NOT_FOUND) return [this.#notFound, ""];
    if (isMiss(found)) return [(_req, res) => answer(found, res), ""];
    return [found.handler, found.pattern.str];
  }

  #register(pattern: string, handler: HandlerFunc, middleware: readonly Middleware[], where: Error): void {
    if (typeof handler !== "function")
      throw new RouterError("ERR_ROUTER_INVALID_HANDLER", `Handle: ${JSON.stringify(pattern)}: handler is not a function`);
    const parsed = parsePattern(pattern);
    for (const r of this.#routes) {
      const why = describeConflict(parsed, r.pattern);
      if (why === undefined) continue;
      throw new RouterError(
        "ERR_ROUTER_CONFLICT",
        `Handle: pattern ${JSON.stringify(parsed.str)} (registered at ${siteLocation(where)}) conflicts with pattern ` +
          `${JSON.stringify(r.pattern.str)} (registered at ${siteLocation(r.where)}): ${why}`,
      );
    }
    const route: Route = { pattern: parsed, handler: composeChain(middleware, handler), where };
    this.#routes.push(route);
    if (needsRoutes(handler)) {
      this.#needers.add(handler);
      bindRouteCheck(this.ServeHTTP, () => this.#unrouted());
    }
    let table = this.#any;
    if (parsed.host !== "") {
      table = this.#hosts.get(parsed.host) ?? new RouteTable();
      this.#hosts.set(parsed.host, table);
    }
    table.insert(route);
  }

  /** The needs of the registered handlers without a route, each named once (read now: a need may list a registry that grew). */
  #unrouted(): RouteNeed[] {
    const needs = new Map<string, RouteNeed>();
    for (const handler of this.#needers) {
      for (const need of routeNeedsOf(handler)) needs.set(`${need.Declared?.Method ?? ""} ${need.Path}`, need);
    }
    return [...needs.values()].filter((n) =>
      n.Declared === undefined ? !this.#serves(n.Path) : !this.#declares(n.Declared.Method, n.Path),
    );
  }

  /** Whether a pattern of its own serves `method path`: the same path (wildcard names aside), for that method or any. */
  #declares(method: string, path: string): boolean {
    let wanted: ReturnType<typeof parsePattern>;
    try {
      wanted = parsePattern(`${method} ${path}`);
    } catch {
      return false; // a route no pattern can spell is mounted nowhere
    }
    return this.#routes.some(
      (r) => comparePaths(r.pattern, wanted) === "equivalent" && ["equivalent", "moreGeneral"].includes(compareMethods(r.pattern, wanted)),
    );
  }

  /** Whether a GET for `path` reaches a route of its own: one starting with a literal segment (a catch-all `/` does not count). */

  #serves(path: string): boolean {
    const found = this.#find({ method: "GET", url: path, headers: {} } as IncomingMessage);
    return !isMiss(found) && found.pattern.segments[0]?.kind === SEG_LITERAL;
  }

  #match(host: string, method: string, path: string, decode: boolean, out: string[]): Route | undefined {
    if (host !== "") {
      const r = this.#hosts.get(host)?.match(method, path, decode, out);
      if (r !== undefined) return r;
    }
    return this.#any.match(method, path, decode, out);
  }

  /** Reports whether `/path` has no exact match but `/path/` has one, so it redirects there. */
  #redirectsToSlash(host: string, method: string, path: string, decode: boolean): boolean {
    if (path.endsWith("/")) return false;
    const slashed = path + "/";
    return isExactMatch(this.#match(host, method, slashed, decode, this.#probe), slashed);
  }

  #find(req: IncomingMessage): Route | Miss {
    const url = req.url ?? "";
    let start = 0;
    if (url.charCodeAt(0) !== 47) {
      // RFC 9112 §3.2.4: asterisk-form is for OPTIONS on the server, not a route.
      start = absolutePathStart(url);
      // RFC 9112 §3.2.2: absolute-form carries an authority; one that does not parse is a bad request.
      if (start < 0 || !URL.canParse(url)) return BAD_REQUEST;
    }
    const q = url.indexOf("?", start);
    const end = q < 0 ? url.length : q;
    // Go's ServeMux cleans an absolute-form target's empty path to "/" and redirects there.
    if (start === end) return { kind: "redirect", location: "/" + (q < 0 ? "" : encodeLocation(url.slice(q))) };
    const path = start === 0 && end === url.length ? url : url.slice(start, end);
    const decode = path.includes("%");
    // RFC 3986 §2.1: a "%" must start a valid escape; the route values must decode.
    if (decode && !isValidEscaping(path)) return BAD_REQUEST;
    const method = req.method ?? "";
    // RFC 9112 §3.2.2: an absolute-form target's authority names the host and the Host header is ignored (as Go's r.Host).
    const host = this.#hosts.size === 0 ? "" : start === 0 ? hostOf(req) : new URL(url).hostname;
    if (!isCleanPath(path)) {
      const clean = cleanPath(path);
      const target = this.#redirectsToSlash(host, method, clean, decode) ? clean + "/" : clean;
      return { kind: "redirect", location: encodeLocation(target + (q < 0 ? "" : url.slice(q))) };
    }
    const route = this.#match(host, method, path, decode, this.#values);
    if (route !== undefined && isExactMatch(route, path)) return route;
    if (this.#redirectsToSlash(host, method, path, decode)) {
      return { kind: "redirect", location: encodeLocation(path + "/" + (q < 0 ? "" : url.slice(q))) };
    }
    if (route !== undefined) return route;
    const allowed = new Set<string>();
    if (host !== "") this.#hosts.get(host)?.collectMethods(path, decode, this.#probe, allowed);
    this.#any.collectMethods(path, decode, this.#probe, allowed);
    if (allowed.size === 0) return NOT_FOUND;
    return { kind: "not-allowed", allow: [...allowed].sort().join(", ") };
  }
}
