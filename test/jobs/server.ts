/*
 * A tiny real HTTP server for the job handler tests: routes by path like
 * the runtime's mux would, and takes the owner from the `x-owner` header.
 */
import { readFileSync } from "node:fs";
import { get, type IncomingMessage, type ServerResponse } from "node:http";
import type { TestContext } from "node:test";
import { discardLogger, html } from "../../lib/http/index.ts";
import { metaRefresh, newHandlers, Registry, renderFragmentHTML, renderStatusHTML, type Config } from "../../lib/jobs/index.ts";
import type { RegistryOptions } from "../../lib/jobs/registry.ts";
import { setCurrentSession } from "../../lib/session/current.ts";
import { startServer as serve } from "../_support/server.ts";
import { SSEParser } from "../_support/sse.ts";

/** A started server and what tests inspect. */
export interface TestServer {
  base: string;
  jobs: Registry;
  /** Server-side responses, in arrival order. */
  responses: ServerResponse[];
}

/** Options of the test server itself. */
export interface ServerOptions {
  registry?: RegistryOptions;
  /** Emit `data-poll-push` on the page. @default true */
  push?: boolean;
  /** Answer 500 on the events route (to exercise the shim's fallback). */
  breakEvents?: boolean;
  /**
   * Leave `Owner` unset and bind a session instead, like the session
   * middleware: subject from `x-owner`, none without the header.
   */
  session?: boolean;
}

const clientDir = new URL("../../../lib/client/", import.meta.url);

/**
 * Starts a server with the job handlers on 127.0.0.1:0, plus the browser
 * shim at /static/jobs.js (and stream.js) and a landing page at /landing; closes in `t.after`.
 */
export async function startServer(t: TestContext, config: Partial<Config> = {}, options: ServerOptions = {}): Promise<TestServer> {
  const jobs = new Registry(discardLogger, options.registry ?? {});
  const push = options.push ?? true;
  const ownerHeader = (req: IncomingMessage): string | undefined =>
    typeof req.headers["x-owner"] === "string" ? req.headers["x-owner"] : undefined;
  const h = newHandlers({
    Jobs: jobs,
    ...(options.session === true ? {} : { Owner: ownerHeader }),
    Render: (_req, res, data) => {
      res.writeHead(200, { "Content-Type": "text/html; charset=utf-8" });
      const page = html`<!doctype html><html><head><title>Job</title>${metaRefresh(data)}<script type="module" src="/static/jobs.js"></script></head><body>${renderStatusHTML(data, { push })}</body></html>`;
      res.end(page.toString());
    },
    RenderFragment: (_req, res, data) => {
      res.writeHead(200, { "Content-Type": "text/html; charset=utf-8" });
      res.end(renderFragmentHTML(data).toString());
    },
    ...config,
  });
  const responses: ServerResponse[] = [];
  const { base } = await serve(
    t,
    (req: IncomingMessage, res: ServerResponse) => {
      responses.push(res);
      if (options.session === true) bindSession(req, ownerHeader(req));
      const path = (req.url ?? "").split("?")[0] ?? "";
      // The shim and the module it imports (`./stream.js`), as written: no fingerprints here.
      if (path === "/static/jobs.js" || path === "/static/stream.js") {
        res.writeHead(200, { "Content-Type": "text/javascript; charset=utf-8" });
        res.end(readFileSync(new URL(path.slice("/static/".length), clientDir)));
        return;
      }
      if (path === "/landing") {
        res.writeHead(200, { "Content-Type": "text/html; charset=utf-8" }).end("<!doctype html><title>landed</title><p>landed</p>");
        return;
      }
      if (options.breakEvents === true && path.endsWith("/events")) {
        res.writeHead(500).end();
        return;
      }
      const handler = /^\/jobs\/[^/]+$/.test(path)
        ? h.StatusPage
        : /^\/jobs\/[^/]+\/fragment$/.test(path)
          ? h.Fragment
          : /^\/jobs\/[^/]+\/events$/.test(path)
            ? h.Events
            : undefined;
      if (handler === undefined) {
        res.writeHead(404).end();
        return;
      }
      void Promise.resolve(handler(req, res)).catch(() => res.destroy());
    },
    { cleanup: () => jobs.Shutdown() },
  );
  return { base, jobs, responses };
}

// What the session middleware does for a request: bind its session, or null for none.
function bindSession(req: IncomingMessage, subject: string | undefined): void {
  const at = new Date("2025-01-01T00:00:00Z");
  const session = {
    Subject: subject ?? "",
    Method: "magiclink",
    AuthTime: at,
    CreatedAt: at,
    LastSeen: at,
    ExpiresAt: at,
    ID: "test",
    PublicID: "p",
    Device: "",
  };
  setCurrentSession(req, subject === undefined ? null : session);
}

/** A fetched response with its body. */
export interface Fetched {
  status: number;
  headers: IncomingMessage["headers"];
  body: string;
}

/** GETs `url` as `owner` (no owner header when undefined) and reads the whole body. */
export function fetchAs(url: string, owner: string | undefined): Promise<Fetched> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = owner === undefined ? {} : { "x-owner": owner };
    get(url, { headers, agent: false }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (c: string) => (body += c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    }).on("error", reject);
  });
}

/** An open event stream read through `SSEParser`. */
export interface Stream {
  parser: SSEParser;
  res: IncomingMessage;
  /** Resolves once `check` holds, re-checked on every chunk. */
  until(check: (p: SSEParser) => boolean): Promise<void>;
  /** Resolves when the server ends the stream. */
  ended: Promise<void>;
}

/** Opens `url` as an event stream for `owner`. */
export function openStream(url: string, owner: string): Promise<Stream> {
  return new Promise((resolve, reject) => {
    get(url, { headers: { "x-owner": owner, accept: "text/event-stream" }, agent: false }, (res) => {
      const parser = new SSEParser();
      const waiters = new Set<() => void>();
      const ended = new Promise<void>((done) => res.on("end", () => done()));
      res.on("data", (chunk: Buffer) => {
        parser.feed(chunk);
        for (const w of [...waiters]) w();
      });
      res.on("end", () => parser.end());
      const until = (check: (p: SSEParser) => boolean): Promise<void> =>
        new Promise((ok, fail) => {
          if (check(parser)) return ok();
          const w = (): void => {
            if (!check(parser)) return;
            waiters.delete(w);
            ok();
          };
          waiters.add(w);
          void ended.then(() => {
            if (waiters.delete(w)) fail(new Error("stream ended before the condition held"));
          });
        });
      resolve({ parser, res, until, ended });
    }).on("error", reject);
  });
}
