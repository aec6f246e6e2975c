/*
 * The real stack the passkey route tests run against: the runtime's
 * `Handler` (an in-memory SQLite database, the merged schema, and
 * crossOriginProtection in `Wrap`), a `Mux` with the sign-in component
 * (emailed links, `SecondFactor` = the passkey `Gate`) and the passkey
 * component, all on one fake clock. Mail is captured by a `Mailer` (the
 * interface the sign-in component accepts from applications).
 * A `Client` keeps cookies like a browser on one origin.
 */
import type { IncomingMessage } from "node:http";
import type { TestContext } from "node:test";
import { crossOriginProtection, discardLogger } from "../../lib/http/index.ts";
import { Handler } from "../../lib/index.ts";
import { mergeSchemas, type DB, type Step } from "../../lib/db/index.ts";
import type { Mailer, Message } from "../../lib/mail/index.ts";
import * as passkey from "../../lib/passkey/index.ts";
import { Mux } from "../../lib/router/index.ts";
import * as session from "../../lib/session/index.ts";
import * as signin from "../../lib/signin/index.ts";
import { FakeClock } from "../_support/clock.ts";
import { CookieJar } from "../_support/http-client.ts";
import { startServer } from "../_support/server.ts";

/** The application origin every test uses (an RP ID must be a host name, never an IP). */
export const ORIGIN = "http://localhost";

/** A running stack. */
export interface Stack {
  base: string;
  clock: FakeClock;
  db: DB;
  keys: passkey.Passkey;
  mail: Message[];
  /** Every auth event both components reported, in order. */
  events: session.AuthEvent[];
  /** A new cookie-keeping client. */
  client(): Client;
}

/** A cookie-keeping HTTP client speaking as a same-origin page. */
export class Client {
  readonly #base: string;
  readonly #mail: Message[];
  /** The client's cookies, kept like a browser's. */
  readonly jar: CookieJar = new CookieJar();
  /** Headers sent with every request (a browser's User-Agent). */
  readonly headers: Record<string, string> = {};
  /** Set-Cookie lines of the last response. */
  lastSetCookie: string[] = [];

  /** Cookie name to value (the jar's map; tests plant and read cookies here). */
  get cookies(): Map<string, string> {
    return this.jar.cookies;
  }

  constructor(base: string, mail: Message[]) {
    this.#base = base;
    this.#mail = mail;
  }

  /** Sends a request; `json` or `form` become the body. Redirects are not followed. */
  async send(
    method: string,
    path: string,
    body: { json?: unknown; form?: Record<string, string> } = {},
    headers: Record<string, string> = {},
  ): Promise<Response> {
    const h: Record<string, string> = { Origin: ORIGIN, ...this.headers, ...headers };
    const cookie = this.jar.header();
    if (cookie !== undefined) h["Cookie"] = cookie;
    let payload: string | undefined;
    if (body.json !== undefined) {
      h["Content-Type"] = "application/json";
      payload = JSON.stringify(body.json);
    } else if (body.form !== undefined) {
      h["Content-Type"] = "application/x-www-form-urlencoded";
      payload = new URLSearchParams(body.form).toString();
    }
    const res = await fetch(this.#base + path, { method, headers: h, redirect: "manual", ...(payload !== undefined && { body: payload }) });
    this.lastSetCookie = res.headers.getSetCookie();
    this.jar.store(this.lastSetCookie);
    return res;
  }

  /** POSTs JSON and returns the status and parsed body. */
  async post(path: string, json: unknown = {}): Promise<{ status: number; body: unknown }> {
    const res = await this.send("POST", path, { json });
    const text = await res.text();
    return { status: res.status, body: text === "" ? undefined : JSON.parse(text) };
  }

  /** Signs in by emailed link; returns the response of the link's landing. */
  async signIn(address: string): Promise<Response> {
    const before = this.#mail.length;
    const begin = await this.send("POST", "/signin", { form: { email: address } });
    if (begin.headers.get("location") !== "/signin?sent=1") throw new Error(`sign-in: not sent (${begin.headers.get("location")})`);
    const message = this.#mail.slice(before).find((m) => m.To === address || (Array.isArray(m.To) && m.To.includes(address)));
    const link = /http:\/\/localhost\/auth\/verify\?token=[A-Za-z0-9_-]+/.exec(message?.Text ?? "")?.[0];
    if (link === undefined) throw new Error("sign-in: no link was mailed");
    return this.send("GET", link.slice(ORIGIN.length));
  }

  /** Who the session says we are (`GET /whoami`), or the status when refused. */
  async whoami(): Promise<{ Subject: string; Method: string; AuthTime: number } | number> {
    const res = await this.send("GET", "/whoami");
    if (res.status !== 200) return res.status;
    const body: unknown = await res.json();
    if (typeof body !== "object" || body === null || !("Subject" in body) || !("Method" in body) || !("AuthTime" in body)) {
      throw new Error("whoami: bad body");
    }
    const { Subject, Method, AuthTime } = body;
    if (typeof Subject !== "string" || typeof Method !== "string" || typeof AuthTime !== "number") throw new Error("whoami: bad fields");
    return { Subject, Method, AuthTime };
  }
}

/** Options of `startStack`. */
export interface StackOptions {
  /** Both components' `ClientIP`. @default unset (the socket's peer address) */
  clientIP?: (req: IncomingMessage) => string;
  /** Runs after each event is recorded in `events`; a sink that throws stands for an audit stream that cannot be appended to. */
  sink?: session.AuthEventSink;
  /** The runtime's `Locales` (a locale prefix or Accept-Language picks one). @default none: every request is English */
  locales?: string[];
  /** Schema steps applied after the components' (an event store, agent tokens). */
  schema?: readonly Step[];
}

/** Starts the stack on 127.0.0.1:0; closes in `t.after`. */
export async function startStack(t: TestContext, options: StackOptions = {}): Promise<Stack> {
  const clock = new FakeClock(new Date("2025-06-01T12:00:00Z"));
  const mail: Message[] = [];
  const mailer: Mailer = {
    Send: async (msg) => {
      mail.push(msg);
    },
  };
  let built: { db: DB; keys: passkey.Passkey } | undefined;
  const events: session.AuthEvent[] = [];
  const onAuthEvent: session.AuthEventSink = (e, req) => {
    events.push(e);
    options.sink?.(e, req);
  };
  const lots = { Max: 1000, Window: 60_000 };
  const clientIP = options.clientIP !== undefined && { ClientIP: options.clientIP };
  const [handler, cleanup] = Handler({
    DBPath: ":memory:",
    Schema: mergeSchemas(session.Schema, signin.Schema, passkey.Schema, options.schema ?? []),
    ...(options.locales !== undefined && { Locales: options.locales, DefaultLocale: "en" }),
    Wrap: (next) => crossOriginProtection({ Origin: ORIGIN })(next),
    Logger: discardLogger,
    Router: (db) => {
      if (db === undefined) throw new Error("no database");
      const auth = signin.create({
        DB: db,
        Origin: ORIGIN,
        InstanceKey: "test-instance-key-0123456789abcdef",
        SigninPath: "/signin",
        SignedInPath: "/account",
        StalePath: "/stepup",
        Mailer: mailer,
        Clock: clock,
        Logger: discardLogger,
        RateLimits: { PerAddress: lots, PerIP: lots, Global: lots },
        SecondFactor: (req, res, identity) => keys.Gate(req, res, identity),
        OnAuthEvent: onAuthEvent,
        ...clientIP,
      });
      const keys = passkey.create({
        DB: db,
        Sessions: auth.Sessions,
        Origin: ORIGIN,
        ConfirmPath: "/confirm",
        SignedInPath: "/account",
        SigninPath: "/signin",
        ManagePath: "/account",
        StalePath: "/stepup",
        Clock: clock,
        Logger: discardLogger,
        OnAuthEvent: onAuthEvent,
        ...clientIP,
      });
      built = { db, keys };
      return routes(auth, keys);
    },
  });
  const { base } = await startServer(t, handler, { cleanup });
  if (built === undefined) throw new Error("stack: Router was not called");
  const { db, keys } = built;
  return { base, clock, db, keys, mail, events, client: () => new Client(base, mail) };
}

function routes(auth: signin.Signin, keys: passkey.Passkey): Mux {
  const mux = new Mux();
  const signedIn = mux.With(auth.RequireSession);
  mux.Handle("POST /signin", auth.Begin);
  mux.Handle("GET /auth/verify", auth.Verify);
  mux.Handle("POST /signout", auth.Signout);
  mux.Handle("POST /passkey/register/begin", keys.RegisterBegin);
  mux.Handle("POST /passkey/register/finish", keys.RegisterFinish);
  mux.Handle("POST /passkey/stepup/begin", keys.StepUpBegin);
  mux.Handle("POST /passkey/stepup/finish", keys.StepUpFinish);
  mux.Handle("POST /passkey/signin/begin", keys.SignInBegin);
  mux.Handle("POST /passkey/signin/finish", keys.SignInFinish);
  mux.Handle("POST /passkey/signin/recovery", keys.SignInRecovery);
  signedIn.Handle("POST /account/passkeys/rename", keys.Rename);
  signedIn.Handle("POST /account/passkeys/delete", keys.Delete);
  signedIn.Handle("POST /account/recovery-codes", (req, res) => {
    const codes = keys.RegenerateRecoveryCodes(signin.From(req)?.Subject ?? "", req);
    res.setHeader("Content-Type", "application/json");
    res.end(JSON.stringify(codes));
  });
  signedIn.Handle("GET /whoami", (req, res) => {
    const who = signin.From(req);
    res.setHeader("Content-Type", "application/json");
    res.end(JSON.stringify({ Subject: who?.Subject, Method: who?.Method, AuthTime: who?.AuthTime.getTime() }));
  });
  return mux;
}

/** Registers a passkey from `authenticator` for the client's session; returns the credential id. */
export async function enroll(client: Client, authenticator: { register(options: unknown): { id: string } }): Promise<string> {
  const begin = await client.post("/passkey/register/begin");
  if (begin.status !== 200) throw new Error(`enroll: begin answered ${begin.status}`);
  const credential = authenticator.register(begin.body);
  const finish = await client.post("/passkey/register/finish", credential);
  if (finish.status !== 200) throw new Error(`enroll: finish answered ${finish.status} ${JSON.stringify(finish.body)}`);
  return credential.id;
}

/** A fresh client of `address` holding only a pending half-session (the account must have a passkey). */
export async function pendingClient(stack: Stack, address: string): Promise<Client> {
  const client = stack.client();
  const res = await client.signIn(address);
  if (res.headers.get("location") !== "/confirm") throw new Error("pending: the Gate did not send us to /confirm");
  return client;
}

/** A signed-in client of `address` with one passkey from `authenticator`. */
export async function enrolledClient(
  stack: Stack,
  address: string,
  authenticator: { register(options: unknown): { id: string } },
): Promise<[client: Client, id: string]> {
  const client = stack.client();
  await client.signIn(address);
  const id = await enroll(client, authenticator);
  return [client, id];
}

/** Reads `error` from a JSON refusal body. */
export function errorOf(body: unknown): unknown {
  return typeof body === "object" && body !== null && "error" in body ? body.error : undefined;
}
