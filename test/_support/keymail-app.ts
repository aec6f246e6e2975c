/*
 * A whole application for the inbox-provider ("keymail") sign-in tests:
 * the runtime's `Handler` with a `Mux` holding the sign-in component's own
 * routes, crossOriginProtection in `Wrap`, an in-memory SQLite database, a
 * real SMTP server for the emailed link and a real oidc-provider whose
 * registered client is this app's Origin. The app listens first, on
 * 127.0.0.1 port 0, so its Origin (the OAuth client_id) is known before
 * the provider starts.
 *
 * `/me` sits behind RequireSession and answers the bound identity as JSON.
 */
import assert from "node:assert/strict";
import type { IncomingMessage, ServerResponse } from "node:http";
import { inspect } from "node:util";
import { mergeSchemas, OpenDB, type DB } from "../../lib/db/index.ts";
import { crossOriginProtection, type HandlerFunc } from "../../lib/http/index.ts";
import { Handler } from "../../lib/index.ts";
import { newSMTPMailer } from "../../lib/mail/index.ts";
import { Mux } from "../../lib/router/index.ts";
import * as session from "../../lib/session/index.ts";
import * as signin from "../../lib/signin/index.ts";
import type { Identity } from "../../lib/signin/index.ts";
import { captureLog, type CapturedLog } from "./http.ts";
import { CookieJar, cookiePair, setCookieLine } from "./http-client.ts";
import { startOIDCProvider, type TestProvider, type TestProviderOptions } from "./oidc-provider.ts";
import { listen } from "./server.ts";
import { startSMTPServer, type TestSMTPServer } from "./smtp-server.ts";

/** The InstanceKey of every keymail test app (checked for in the logs). */
export const KEYMAIL_INSTANCE_KEY = "keymail-test-instance-key-7f3a9c2e51d8";

/** Options of `startKeymailApp`. */
export interface KeymailAppOptions {
  accounts: TestProviderOptions["accounts"];
  claimed: string[];
  stallWebFinger?: boolean;
  /** Passed as `Provider.LookupTimeout`. */
  lookupTimeout?: number;
}

/** Hooks a test may swap between requests; unset, the component's defaults apply. */
export interface KeymailHooks {
  authorize?: (address: string) => boolean;
  secondFactor?: (req: IncomingMessage, res: ServerResponse, identity: Identity) => boolean;
}

/** A running keymail test app. */
export interface KeymailApp {
  /** `http://127.0.0.1:<port>`: the app's Origin and the provider's client_id. */
  origin: string;
  idp: TestProvider;
  smtp: TestSMTPServer;
  db: DB;
  auth: signin.Signin;
  /** Every line the app's logger (runtime, sign-in, mailer) wrote. */
  log: CapturedLog;
  hooks: KeymailHooks;
  /** Values that must never reach a log line: the InstanceKey, and what the helpers below saw on the wire. */
  secrets: Set<string>;
  /** Moves the app's clock forward by `ms`. */
  advance(ms: number): void;
  /** Puts the app's clock back to real time. */
  resetClock(): void;
  /** POSTs a form the way a same-origin browser page would. */
  post(path: string, form: Record<string, string>): Promise<Response>;
  /** GETs a path or absolute URL with an optional Cookie header, not following redirects. */
  get(target: string | URL, cookie?: string): Promise<Response>;
  /** Rows in the sessions table. */
  sessionCount(): number;
  close(): Promise<void>;
}

/** Starts the app, its SMTP server and its provider; call `close` when done. */
export async function startKeymailApp(options: KeymailAppOptions): Promise<KeymailApp> {
  let serve: HandlerFunc = (_req, res) => void res.writeHead(503).end();
  const served = await listen((req, res) => serve(req, res));
  const origin = served.base;
  const idp = await startOIDCProvider({
    clientOrigin: origin,
    accounts: options.accounts,
    claimed: options.claimed,
    ...(options.stallWebFinger !== undefined && { stallWebFinger: options.stallWebFinger }),
  });
  const smtp = await startSMTPServer();
  const log = captureLog();
  const logger = log.logger;
  const db = OpenDB(":memory:");
  const hooks: KeymailHooks = {};
  let offset = 0;
  let auth: signin.Signin | undefined;
  const router = (handle: DB | undefined): Mux => {
    if (handle === undefined) throw new Error("keymail app: no database");
    auth = signin.create({
      DB: handle,
      Origin: origin,
      InstanceKey: KEYMAIL_INSTANCE_KEY,
      SigninPath: "/signin",
      SignedInPath: "/account",
      Mailer: newSMTPMailer(`smtp://127.0.0.1:${smtp.port}`, { logger }),
      Logger: logger,
      Clock: { now: () => new Date(Date.now() + offset) },
      // Many sign-ins from one address and one IP within a test run.
      RateLimits: {
        PerAddress: { Max: 1000, Window: 60_000 },
        PerIP: { Max: 1000, Window: 60_000 },
        Global: { Max: 1000, Window: 60_000 },
      },
      Authorize: (address) => hooks.authorize?.(address) ?? true,
      SecondFactor: (req, res, identity) => hooks.secondFactor?.(req, res, identity) ?? false,
      Provider: { Issuer: idp.issuer, ...(options.lookupTimeout !== undefined && { LookupTimeout: options.lookupTimeout }) },
    });
    const mux = new Mux();
    mux.Handle("POST /signin", auth.Begin);
    mux.Handle("GET /auth/verify", auth.Verify);
    mux.Handle("GET /auth/callback", auth.Callback);
    mux.Handle("POST /signout", auth.Signout);
    mux.With(auth.RequireSession).Handle("GET /me", (req, res) => {
      const identity = signin.From(req);
      res.setHeader("Content-Type", "application/json");
      res.end(JSON.stringify({ subject: identity?.Subject, method: identity?.Method }));
    });
    return mux;
  };
  const [handler, cleanup] = Handler({
    DB: db,
    Schema: mergeSchemas(session.Schema, signin.Schema),
    Router: router,
    Wrap: (next) => crossOriginProtection({ Origin: origin })(next),
    Origin: origin,
    Logger: logger,
  });
  serve = handler;
  if (auth === undefined) throw new Error("keymail app: the router was not built");
  const count = db.prepare<[], { n: number }>("SELECT count(*) AS n FROM sessions");
  // One browser: it holds only the sign-in binding cookie; the tests send every other cookie themselves.
  const browser = new CookieJar();
  return {
    origin,
    idp,
    smtp,
    db,
    auth,
    log,
    hooks,
    secrets: new Set([KEYMAIL_INSTANCE_KEY]),
    advance: (ms) => void (offset += ms),
    resetClock: () => void (offset = 0),
    // The sign-in binding cookie Begin sets rides along on later requests, as a browser sends it.
    post: async (path, form) => {
      const binding = browser.header();
      const res = await fetch(new URL(path, origin), {
        method: "POST",
        redirect: "manual",
        headers: {
          origin,
          "sec-fetch-site": "same-origin",
          "content-type": "application/x-www-form-urlencoded",
          ...(binding !== undefined && { cookie: binding }),
        },
        body: new URLSearchParams(form).toString(),
      });
      const line = setCookieLine(res.headers.getSetCookie(), "framework_signin");
      if (line !== undefined) browser.store([line]);
      return res;
    },
    get: (target, cookie) => {
      const header = [cookie, browser.header()].filter((c) => c !== undefined).join("; ");
      return fetch(new URL(target, origin), { redirect: "manual", headers: header === "" ? {} : { cookie: header } });
    },
    sessionCount: () => count.get()?.n ?? -1,
    async close() {
      await served.close();
      await idp.close();
      await smtp.close();
      cleanup();
      db.close();
    },
  };
}

/** What `beginKeymail` saw: the provider redirect and the pending blob cookie. */
export interface Begun {
  /** The authorization request's URL. */
  location: URL;
  /** The full Set-Cookie line of the pending blob. */
  blobLine: string;
  /** The Cookie header a browser sends back with it. */
  blob: string;
}

/** POSTs `email` to /signin and expects the 303 to the provider with the pending cookie. */
export async function beginKeymail(app: KeymailApp, address: string): Promise<Begun> {
  const res = await app.post("/signin", { email: address });
  assert.equal(res.status, 303);
  const location = new URL(res.headers.get("location") ?? "", app.origin);
  assert.equal(location.origin, app.idp.issuer, "Begin redirects to the provider");
  const blobLine = setCookieLine(res.headers.getSetCookie(), "framework_oidc");
  assert.ok(blobLine !== undefined, "Begin sets the pending cookie");
  const blob = cookiePair(blobLine);
  for (const name of ["state", "nonce", "code_challenge"]) noteSecret(app, location.searchParams.get(name));
  noteSecret(app, blob.slice(blob.indexOf("=") + 1));
  return { location, blobLine, blob };
}

/** GETs the callback URL the provider sent the browser to, with the given Cookie header. */
export function callback(app: KeymailApp, url: URL, cookie: string | undefined): Promise<Response> {
  for (const name of ["code", "state"]) noteSecret(app, url.searchParams.get(name));
  return app.get(`${url.pathname}${url.search}`, cookie);
}

/** Adds a value to the app's secrets (ignoring empty ones). */
export function noteSecret(app: KeymailApp, value: string | null | undefined): void {
  if (value !== null && value !== undefined && value.length >= 8) app.secrets.add(value);
}

/** Fails when any log line so far, errors and causes included, holds any of the app's secrets. */
export function assertLogsClean(app: KeymailApp): void {
  for (const line of app.log.lines()) {
    const text = inspect(line, { depth: null, breakLength: Infinity });
    for (const secret of app.secrets) assert.ok(!text.includes(secret), `a secret leaked into the log line "${String(line["msg"])}"`);
  }
}
