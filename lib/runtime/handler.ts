/*
 * Handler assembles the middleware stack in the order SPEC §4.4 fixes,
 * outermost first: Recover → Ctx binding → securityHeaders → Chrome
 * (probes, locale prefix) → Wrap → framework routes (POST /_locale) → the
 * application's routes. It owns the database when `DBPath` is set (database.ts).
 */
import { Chrome } from "./chrome.ts";
import { bindCtx } from "./ctx.ts";
import { bootDatabase } from "./database.ts";
import { HTTPError, newLogger, type HandlerFunc, type Logger } from "../http/index.ts";
import { LocaleSwitchPath } from "../i18n/index.ts";
import { unroutedNeeds } from "../internal/index.ts";
import { securityHeaders } from "./security-headers.ts";
import { buildLocales } from "./locales.ts";
import { routesHandler, validateOptions, type Options, type Routes } from "./options.ts";
import { recoverPanics } from "./recover.ts";

/**
 * Builds the full request handler without a listener, for test harnesses
 * and embedding. Call `cleanup` afterwards: it closes the database the
 * runtime opened. Throws `HTTPError` ERR_HTTP_INVALID_OPTIONS for an
 * invalid configuration (SPEC §7), and any database error at boot.
 *
 * @example
 * const [handler, cleanup] = Handler({ Mux: mux, DBPath: ":memory:" });
 * const server = http.createServer(handler);
 */
export function Handler(opts: Options): [handler: HandlerFunc, cleanup: () => void] {
  validateOptions(opts);
  const logger = opts.Logger ?? newLogger();
  const { db, close: cleanup } = bootDatabase(opts);
  try {
    const routes = opts.Mux ?? opts.Router?.(db);
    if (routes === undefined) throw new HTTPError("ERR_HTTP_INVALID_OPTIONS", "options: Router returned nothing");
    warnUnrouted(routes, logger);
    const app = routesHandler(routes);
    const locales = buildLocales(opts);
    const withFramework: HandlerFunc =
      locales === undefined
        ? app
        : function frameworkRoutes(req, res) {
            const url = req.url ?? "/";
            // SPEC §2.4: the switch is mounted at the contract's one constant, which lib/i18n exports.
            const isSwitch = url === LocaleSwitchPath || url.startsWith(LocaleSwitchPath + "?");
            return isSwitch ? locales.SwitchHandler(req, res) : app(req, res);
          };
    let wrapped = withFramework;
    if (opts.Wrap !== undefined) {
      const result = opts.Wrap(withFramework);
      // SPEC §7: Wrap returning nil is a boot error.
      if (typeof result !== "function") throw new HTTPError("ERR_HTTP_INVALID_OPTIONS", "options: Wrap returned nothing");
      wrapped = result;
    }
    const chrome = Chrome({ DB: db, NextDue: opts.NextDue, LocaleMiddleware: locales?.Middleware });
    const headers = securityHeaders({
      ...(opts.CSP !== undefined && { CSP: opts.CSP }),
      ...(opts.Origin !== undefined && { Origin: opts.Origin }),
    });
    const ctx = bindCtx({ DB: db, Logger: logger, Assets: opts.Assets, Render: opts.Render, ErrorPage: opts.ErrorPage });
    const handler = recoverPanics(logger, opts.ErrorPage)(ctx(headers(chrome(wrapped))));
    return [handler, cleanup];
  } catch (err) {
    cleanup();
    throw err;
  }
}

/**
 * Warns, once per path, about each page a component links to (`ApprovalPath`) and each route an action declares
 * (`defineAction`) that `routes` (a `Mux`; any other handler is not checked) does not route.
 */
function warnUnrouted(routes: Routes, logger: Logger): void {
  for (const need of unroutedNeeds(typeof routes === "function" ? routes : routes.ServeHTTP)) {
    if (need.Declared !== undefined) {
      const route = `${need.Declared.Method} ${need.Path}`;
      logger.warn(
        `${need.Option}: no route serves ${route} with a pattern of its own, so the action's handler never runs (a request there reaches another route or a 404); mount it where its pages are, behind their middleware: group.Handle("${route}", def.Handler)`,
        { path: need.Path, method: need.Declared.Method },
      );
    } else {
      logger.warn(
        `${need.Option}: no route serves GET ${need.Path}, so the links it hands out answer 404; register "GET ${need.Path}" on the Mux, or change ${need.Option}`,
        { path: need.Path },
      );
    }
  }
}
