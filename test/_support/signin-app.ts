/*
 * A real sign-in application for integration tests: a real SMTP server
 * (test/_support/smtp-server.ts), the full runtime stack built by
 * `Handler({ Router, Schema, Wrap: crossOriginProtection, Logger })` on
 * 127.0.0.1:0 (server.ts), a SQLite file in a temporary directory, a fake clock (clock.ts), a
 * capturing logger, a tiny cookie jar and helpers to POST /signin and pull
 * the link out of the delivered email.
 *
 * Links are bound to the browser that asked (signin binding.ts). The app
 * plays that browser by default: `begin` without a jar keeps the binding
 * cookie in `app.browser`, and every request whose jar holds no binding of
 * its own carries it. It is sent beside the jar's cookies,
 * not stored in the jar. Pass `unbound: true` to be any other opener (a scanner, another device), or use jars that `begin` was
 * called with to play several browsers.
 *
 * const app = await startSigninApp(t, { config: { Authorize: (a) => a !== "eve@example.com" } });
 * const jar = await app.signIn("ann@example.com");
 * const me = await app.request("GET", "/me", { jar });
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestContext } from "node:test";
import type { DB, Step } from "../../lib/db/index.ts";
import { mergeSchemas } from "../../lib/db/index.ts";
import { crossOriginProtection, type HandlerFunc, type Logger } from "../../lib/http/index.ts";
import { Handler, type RenderFunc } from "../../lib/index.ts";
import { newSMTPMailer, type Mailer } from "../../lib/mail/index.ts";
import { Mux } from "../../lib/router/index.ts";
import * as session from "../../lib/session/index.ts";
import * as signin from "../../lib/signin/index.ts";
import { FakeClock } from "./clock.ts";
import { captureLog, type CapturedLog } from "./http.ts";
import { CookieJar, sendRequest, type RequestOptions, type TestResponse } from "./http-client.ts";
import { listen } from "./server.ts";
import { startSMTPServer, type TestSMTPServer, type TestSMTPServerOptions } from "./smtp-server.ts";

export { CookieJar };
export type { RequestOptions, TestResponse };

/** Options of `startSigninApp`. */
export interface SigninAppOptions {
  /** Sign-in config fields to set or override (DB, Clock and Logger are the harness's). */
  config?: Partial<Omit<signin.Config, "DB" | "Clock" | "Logger">>;
  /** The public origin. @default "http://127.0.0.1:<port>" */
  origin?: string;
  /** SQLite file to use (reopen the same one to simulate a restart). @default a new temporary file */
  dbPath?: string;
  /** "smtp" (a real SMTP server, with these options), "log" (Mailer unset) or an SMTP URL of your own. @default "smtp" */
  mail?: "smtp" | "log" | { url: string };
  smtpOptions?: TestSMTPServerOptions;
  clock?: FakeClock;
  /** `StalePath`; false leaves it unset. @default "/stepup" */
  stalePath?: string | false;
  /** Freshness window of GET /fresh. @default 5 minutes */
  freshFor?: number;
  /** Schema steps applied after the sessions and sign-in schema. */
  schema?: readonly Step[];
  /** The runtime's `Locales` (the first is the default; a request picks one by Accept-Language). @default unset: English only */
  locales?: readonly string[];
  /** The runtime's `LocaleFS`: the application's catalogs (the starter's `locales/`). @default unset */
  localeFS?: string;
  /** The runtime's `Render` (handed to handlers as `Ctx.Render`). @default unset */
  render?: RenderFunc;
  /** Mounts `crossOriginProtection` in `Wrap`; false leaves the component to protect itself. @default true */
  crossOriginProtection?: boolean;
  /** Adds routes of the suite's own (tools, approvals...) to the application's mux. */
  extend?: (mux: Mux, auth: signin.Signin, db: DB, logger: Logger, mailer: Mailer | undefined) => void;
}

/** A running sign-in application. */
export interface SigninApp {
  /** http://127.0.0.1:<port>, where requests go. */
  base: string;
  /** The configured public origin (links and the CSRF check use it). */
  origin: string;
  auth: signin.Signin;
  db: DB;
  dbPath: string;
  clock: FakeClock;
  /** Everything the app's logger wrote, as parsed JSON lines. */
  log: CapturedLog;
  smtp: TestSMTPServer | undefined;
  /** The default browser: holds the binding cookie of `begin` calls made without a jar. */
  browser: CookieJar;
  /** The binding cookie's name on this origin. */
  bindingCookie: string;
  /** Sends a request; a path or a URL of any origin is re-based onto `base`. POSTs carry Origin: origin unless overridden. */
  request(method: string, target: string, options?: RequestOptions): Promise<TestResponse>;
  /** POST /signin with `email`. */
  begin(email: string, options?: RequestOptions): Promise<TestResponse>;
  /** Waits for the `n`-th (1-based) email to `address` and returns its link. */
  linkFor(address: string, n?: number): Promise<string>;
  /** Begin, read the email, follow the link; returns the jar holding the session cookie. */
  signIn(email: string, address?: string): Promise<CookieJar>;
  /** Closes the HTTP server and the database (the SMTP server stays up). */
  closeApp(): Promise<void>;
}

/** Extracts the 6-digit sign-in code from a message text. */
export function extractCode(text: string): string {
  const m = /\b([0-9]{6})\b/.exec(text.replace(/https?:\/\/\S+/g, ""));
  if (m?.[1] === undefined) throw new Error(`no sign-in code in: ${text}`);
  return m[1];
}

/** Extracts the verify link from a message text. */
export function extractLink(text: string): string {
  const m = /https?:\/\/[^\s"<>]+\/auth\/verify\?token=[A-Za-z0-9_-]+/.exec(text);
  if (m === null) throw new Error(`no sign-in link in: ${text}`);
  return m[0];
}

/** Counts rows of `table`. */
export function count(db: DB, table: string, where = "1=1", ...params: unknown[]): number {
  const row: unknown = db.prepare(`SELECT count(*) AS n FROM ${table} WHERE ${where}`).get(...params);
  if (typeof row !== "object" || row === null || !("n" in row) || typeof row.n !== "number") throw new Error("count: no row");
  return row.n;
}

/** Routes of the test application. */
function routes(auth: signin.Signin, freshFor: number): Mux {
  const mux = new Mux();
  const show: HandlerFunc = (req, res) => {
    const from = signin.From(req);
    const current = signin.SessionFrom(req);
    res.setHeader("Content-Type", "application/json");
    res.end(JSON.stringify({ from, session: current, userID: session.userID(req) ?? null }));
  };
  mux.Handle("POST /signin", auth.Begin);
  mux.Handle("GET /auth/verify", auth.Verify);
  mux.Handle("POST /auth/code", auth.VerifyCode);
  mux.Handle("POST /signout", auth.Signout);
  mux.With(auth.RequireSession).Handle("POST /sessions/revoke", auth.RevokeSession);
  mux.With(auth.RequireSession).Handle("POST /sessions/revoke-others", auth.RevokeOtherSessions);
  mux.With(auth.RequireSession).Handle("GET /me", show);
  mux.With(auth.RequireFreshSession(freshFor)).Handle("GET /fresh", show);
  mux.With(auth.RequireFreshSession(freshFor)).Handle("POST /fresh", show);
  return mux;
}

/** Starts an SMTP server (unless `mail` says otherwise) and the application; both close in `t.after`. */
export async function startSigninApp(t: TestContext, options: SigninAppOptions = {}): Promise<SigninApp> {
  const mail = options.mail ?? "smtp";
  const smtp = mail === "smtp" ? await startSMTPServer(options.smtpOptions) : undefined;
  if (smtp !== undefined) t.after(() => smtp.close());
  let dbPath = options.dbPath;
  if (dbPath === undefined) {
    const dir = mkdtempSync(join(tmpdir(), "latch-signin-"));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    dbPath = join(dir, "app.db");
  }
  const clock = options.clock ?? new FakeClock();
  const log = captureLog();
  const logger = log.logger;
  let handler: HandlerFunc = (_req, res) => void res.end();
  const served = await listen((req, res) => handler(req, res));
  const base = served.base;
  const origin = options.origin ?? base;
  const url = mail === "smtp" ? `smtp://127.0.0.1:${smtp?.port ?? 0}` : mail === "log" ? undefined : mail.url;
  const mailer: Mailer | undefined = url === undefined ? undefined : newSMTPMailer(url, { tls: { rejectUnauthorized: false }, logger });
  const built: { db?: DB; auth?: signin.Signin } = {};
  const [h, cleanup] = Handler({
    DBPath: dbPath,
    ...(options.render !== undefined && { Render: options.render }),
    ...(options.locales !== undefined && { Locales: [...options.locales] }),
    ...(options.localeFS !== undefined && { LocaleFS: options.localeFS }),
    Schema: mergeSchemas(session.Schema, signin.Schema, options.schema ?? []),
    ...(options.crossOriginProtection !== false && { Wrap: (next: HandlerFunc) => crossOriginProtection({ Origin: origin })(next) }),
    Logger: logger,
    Router: (opened) => {
      if (opened === undefined) throw new Error("signin-app: no database");
      const auth = signin.create({
        DB: opened,
        Origin: origin,
        InstanceKey: "signin-app-instance-key-0123456789abcdef",
        SigninPath: "/signin",
        SignedInPath: "/account",
        ...(options.stalePath !== false && { StalePath: options.stalePath ?? "/stepup" }),
        Clock: clock,
        Logger: logger,
        ...(mailer !== undefined && { Mailer: mailer }),
        ...options.config,
      });
      built.db = opened;
      built.auth = auth;
      const mux = routes(auth, options.freshFor ?? 5 * 60 * 1000);
      options.extend?.(mux, auth, opened, logger, mailer);
      return mux;
    },
  });
  handler = h;
  const { db, auth } = built;
  if (db === undefined || auth === undefined) throw new Error("signin-app: Router was not called");
  const browser = new CookieJar();
  const bindingCookie = origin.startsWith("https:") ? "__Host-framework_signin" : "framework_signin";
  // The default browser's binding rides along unless the request is unbound or its jar holds its own.
  const bind = (opts: RequestOptions): RequestOptions => {
    const held = browser.cookies.get(bindingCookie);
    if (opts.unbound === true || held === undefined || opts.jar?.cookies.has(bindingCookie) === true) return opts;
    const cookie = [opts.jar?.header(), `${bindingCookie}=${held}`].filter((c) => c !== undefined).join("; ");
    return { ...opts, headers: { Cookie: cookie, ...opts.headers } };
  };
  let closed = false;
  const closeApp = async (): Promise<void> => {
    if (closed) return;
    closed = true;
    await served.close();
    cleanup();
  };
  t.after(closeApp);
  const app: SigninApp = {
    base,
    origin,
    auth,
    db,
    dbPath,
    clock,
    log,
    smtp,
    browser,
    bindingCookie,
    request: (method, target, opts = {}) => sendRequest(base, method, target, bind(opts), origin),
    begin: (email, opts = {}) => sendRequest(base, "POST", "/signin", { ...opts, jar: opts.jar ?? browser, form: { email } }, origin),
    async linkFor(address, n = 1) {
      if (smtp === undefined) throw new Error("signin-app: no SMTP server");
      const msg = await smtp.waitForMessage((m) => smtp.messages.filter((x) => x.to.includes(address)).indexOf(m) === n - 1);
      return extractLink(msg.parsed.text ?? "");
    },
    async signIn(email, address = email.trim().toLowerCase()) {
      const sent = smtp?.messages.filter((m) => m.to.includes(address)).length ?? 0;
      const begun = await app.begin(email);
      if (begun.location !== "/signin?sent=1") throw new Error(`signIn: Begin answered ${begun.status} ${begun.location ?? ""}`);
      const jar = new CookieJar();
      const landed = await app.request("GET", await app.linkFor(address, sent + 1), { jar });
      if (landed.location !== "/account") throw new Error(`signIn: Verify answered ${landed.status} ${landed.location ?? ""}`);
      return jar;
    },
    closeApp,
  };
  return app;
}
