/*
 * Framework chrome (SPEC §4.4): the probes answered outside `Wrap` and
 * locale-prefix stripping, which must run before the application's
 * middleware and routes see the path.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { DB } from "../db/index.ts";
import { writeJSON as writeJSON, type HandlerFunc, type Middleware } from "../http/index.ts";
import { writeText } from "../internal/index.ts";
import { BuildVersion } from "./version.ts";

/** What the chrome needs. */
export interface ChromeOptions {
  DB: DB | undefined;
  NextDue: (() => Date | undefined | Promise<Date | undefined>) | undefined;
  /** Locale resolution and prefix stripping, when locales are declared. */
  LocaleMiddleware: Middleware | undefined;
}

function onlyGet(req: IncomingMessage, res: ServerResponse): boolean {
  if (req.method === "GET" || req.method === "HEAD") return true;
  res.setHeader("Allow", "GET, HEAD");
  writeText(res, 405, "405 method not allowed");
  return false;
}

/** Returns the chrome middleware. */
export function Chrome(options: ChromeOptions): Middleware {
  const { DB: db, NextDue } = options;
  const health = db?.prepare("SELECT 1");
  return function chromeMiddleware(next: HandlerFunc): HandlerFunc {
    const inner = options.LocaleMiddleware === undefined ? next : options.LocaleMiddleware(next);
    return function chrome(req, res) {
      const url = req.url ?? "/";
      const q = url.indexOf("?");
      const path = q < 0 ? url : url.slice(0, q);
      switch (path) {
        case "/healthz":
          if (!onlyGet(req, res)) return undefined;
          health?.get();
          return writeJSON(res, 200, { status: "ok" });
        case "/api/version":
          if (!onlyGet(req, res)) return undefined;
          return writeJSON(res, 200, { version: BuildVersion });
        case "/api/next-due":
          if (NextDue === undefined) break;
          if (!onlyGet(req, res)) return undefined;
          return Promise.resolve(NextDue()).then((due) => writeJSON(res, 200, { next_due: due === undefined ? null : due.toISOString() }));
      }
      return inner(req, res);
    };
  };
}
