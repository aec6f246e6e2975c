/*
 * Options of the runtime (SPEC §2.1) and the request context (§2.2), field
 * names the contract's letter for letter; fields beyond it are latch's
 * documented extensions (marked so below).
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { DB, Step } from "../db/index.ts";
import { HTTPError, type HandlerFunc, type Logger } from "../http/index.ts";
import { countProblem, durationProblem, parseOrigin } from "../internal/index.ts";

/** Something that serves requests: a handler, or an object with `ServeHTTP` (a `Mux`). */
export type Routes = HandlerFunc | { ServeHTTP: HandlerFunc };

/** Renders an error body; it writes the status code itself (SPEC §2.2). */
export type ErrorPageFunc = (req: IncomingMessage, res: ServerResponse, status: number, ref: string) => void;

/** Renders a named view with data. */
export type RenderFunc = (req: IncomingMessage, res: ServerResponse, view: string, data: unknown) => void | Promise<void>;

/** Runtime options. Exactly one of `Mux` and `Router` must be set. */
export interface Options {
  /** The application's routes, built before boot. */
  Mux?: Routes;
  /** Builds the routes after the database opens; receives the handle the runtime opened (or `DB`). */
  Router?: (db: DB | undefined) => Routes;
  /** Middleware hook (sessions, CSRF, authorization). Returning nothing is a boot error. */
  Wrap?: (next: HandlerFunc) => HandlerFunc | undefined;
  /** SQLite path; relative paths live in `$STATE_DIRECTORY` when it is set, else in the working directory. Must be blank when `DB` is set. */
  DBPath?: string;
  /** A handle the application opened itself (extension); the runtime never closes it. */
  DB?: DB;
  /** Older migration mechanism: additive-only SQL applied in order, idempotently. */
  Migrations?: readonly string[];
  /** Newer mechanism: merged, named schema steps (extension; see `mergeSchemas`). */
  Schema?: readonly Step[];
  /** Unix socket path to listen on (platform activation). */
  Socket?: string;
  /** `host:port` or `:port` to listen on (platform activation). */
  Addr?: string;
  /** Declared locale codes; enables locale-prefix stripping and `POST /_locale`. */
  Locales?: readonly string[];
  /** Default locale. @default the first of `Locales` */
  DefaultLocale?: string;
  /** Directory of the application's catalogs, `<code>.json`. */
  LocaleFS?: string;
  /** Replaces the baseline Content-Security-Policy. */
  CSP?: string;
  /** Answers the scheduled-wake poll `GET /api/next-due`; unset, the route does not exist. */
  NextDue?: () => Date | undefined | Promise<Date | undefined>;
  /** One sidecar pass, run in a loop under `sidecar run`. */
  Sidecar?: (db: DB | undefined, signal: AbortSignal) => void | Promise<void>;
  /** Renders the body of a 500 for a failure the app never saw; also `Ctx.ErrorPage`. */
  ErrorPage?: ErrorPageFunc;
  /** The asset set handed to handlers as `Ctx.Assets` (extension). */
  Assets?: { Path(name: string): string };
  /** Renders named views; handed to handlers as `Ctx.Render` (extension). */
  Render?: RenderFunc;
  /** Logger for the runtime (extension). @default newLogger() */
  Logger?: Logger;
  /** Public origin, e.g. "https://example.com"; an https origin turns on HSTS (extension). */
  Origin?: string;
  /** Milliseconds in-flight requests get to finish after SIGTERM (extension). @default 10000 */
  ShutdownGrace?: number;
  /** Milliseconds between sidecar passes (extension). @default 60000 */
  SidecarInterval?: number;
  /** Aborting it shuts the server down like SIGTERM (extension; for tests and embedding). */
  Signal?: AbortSignal;
  /**
   * What the runtime stops when shutdown begins, before the grace period:
   * the app's job `Registry`s, whose running jobs' signals abort (extension).
   */
  Stop?: readonly Stoppable[];
  /**
   * Open connections `Serve` holds at once (extension). At the cap a new
   * connection evicts the longest-idle one, else the slowest upload, or
   * gets a 503 when every connection is handling a request whose body has
   * arrived; event streams hold at most half (lib/runtime/README.md).
   * @default the soft open-files limit less 128 (`defaultMaxConnections()`)
   */
  MaxConnections?: number;
  /** Open connections one client (an IPv4 address, an IPv6 /64) may hold (extension); set it to `MaxConnections` behind a TCP proxy. @default 64 */
  MaxConnectionsPerClient?: number;
  /** Milliseconds a client has to send a complete request head; then a 408 and the connection closes (extension). @default 10000 */
  HeadersTimeout?: number;
  /**
   * The durability barrier (extension): after a commit that must survive
   * the loss of the machine, wait for Litestream's `sync` on its control
   * socket, and answer 503 with a reference when it fails. `path` is the
   * database as Litestream's configuration names it (default: the opened
   * file's absolute path). Unset, commits are durable on this machine only.
   */
  Durable?: { socket?: string; path?: string; timeout?: number };
}

/** Something the runtime stops on shutdown (a jobs `Registry`). */
export interface Stoppable {
  Shutdown(): void;
}

/**
 * The request context (SPEC §2.2), built by the runtime for each request
 * (`ctxFrom(req)`); identity and locale are not held here.
 */
export interface Ctx {
  DB: DB | undefined;
  Logger: Logger;
  Assets: { Path(name: string): string } | undefined;
  Actor: { Human: boolean; Name: string; String(): string };
  Render: RenderFunc | undefined;
  ErrorPage: ErrorPageFunc | undefined;
}

function invalid(reason: string): HTTPError {
  return new HTTPError("ERR_HTTP_INVALID_OPTIONS", `options: ${reason}`);
}

/** Throws `HTTPError` ERR_HTTP_INVALID_OPTIONS for a configuration SPEC §7 calls invalid, or a bad Origin or timer duration. */
export function validateOptions(opts: Options): void {
  // SPEC §2.1, §7: exactly one of Mux and Router.
  if ((opts.Mux === undefined) === (opts.Router === undefined)) throw invalid("exactly one of Mux and Router must be set");
  // SPEC §2.1: DBPath must be blanked when the app opened its own handle.
  if (opts.DB !== undefined && opts.DBPath) throw invalid("DBPath must be blank when DB is set");
  if (opts.Socket && opts.Addr) throw invalid("set at most one of Socket and Addr");
  if (opts.Locales !== undefined && opts.Locales.length === 0) throw invalid("Locales is empty");
  if (opts.Durable !== undefined && !opts.DBPath && opts.DB === undefined) throw invalid("Durable needs DBPath or DB");
  // Origin decides HSTS and cookie names; a typo must fail at boot, not turn HSTS off.
  if (opts.Origin !== undefined && parseOrigin(opts.Origin) === undefined) throw invalid("Origin must be an http or https URL");
  // The durations feed timers: Infinity (or anything past MAX_TIMER_MS) would fire after 1 ms.
  const numbers = [
    ["MaxConnections", opts.MaxConnections, countProblem],
    ["MaxConnectionsPerClient", opts.MaxConnectionsPerClient, countProblem],
    ["HeadersTimeout", opts.HeadersTimeout, durationProblem],
    ["Durable.timeout", opts.Durable?.timeout, durationProblem],
    ["ShutdownGrace", opts.ShutdownGrace, durationProblem],
    ["SidecarInterval", opts.SidecarInterval, durationProblem],
  ] as const;
  for (const [name, value, problemOf] of numbers) {
    const problem = value === undefined ? undefined : problemOf(value);
    if (problem !== undefined) throw invalid(`${name} ${problem}`);
  }
}

/** Returns the handler behind `Routes`. */
export function routesHandler(routes: Routes): HandlerFunc {
  if (typeof routes === "function") return routes;
  // Called as a method: a Mux class reads its own (#private) state through `this`. Bound, not wrapped: no extra frame per request.
  return routes.ServeHTTP.bind(routes);
}
