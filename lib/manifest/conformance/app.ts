/*
 * The application a conformance run needs, built by the application's own factory: latch serves its handler on
 * 127.0.0.1, gives it a mailer that keeps each message, and signs a person in as a browser does.
 */
import { createServer, request, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import type { ToolRegistry } from "../../agent/index.ts";
import type { HandlerFunc } from "../../http/index.ts";

/** A running application, as the suite sees it. */
export interface ConformanceApp {
  /** Where requests go, e.g. "http://127.0.0.1:4321". */
  base: string;
  /** The public origin mutating requests carry. */
  origin: string;
  /** Returns a Cookie header of a fresh session for `subject`. */
  signIn(subject: string): Promise<string>;
  /** The registry the resources were mounted with. */
  tools: ToolRegistry;
  /** The application's catalogs by locale code (all must hold every label). */
  catalogs: ReadonlyMap<string, Readonly<Record<string, string>>>;
  /**
   * A TeamScoped resource's runs: the last link the application mailed to `address` (under `origin`). The suite makes
   * its team through the application's lib/teams routes under `teamsPath` (default "/teams"): creates it, invites a
   * member and a viewer, accepts with this link, removes the member.
   */
  mailedLink?(address: string): Promise<string>;
  teamsPath?: string;
  /** Stops the application; the suite calls it after its last case. */
  close?: () => Promise<void>;
}

/** A message the capturing mailer kept: the fields of latch's `Message` a sign-in test reads. */
export interface CapturedMail {
  readonly To: string | readonly string[];
  readonly Subject: string;
  readonly Text: string;
}

/** A mailer that keeps what it is given; pass it to sign-in as its `Mailer`. */
export interface CapturingMailer {
  Send(message: CapturedMail): Promise<void>;
  readonly Sent: readonly CapturedMail[];
}

/** What the application's factory builds: its handler, tools and catalogs. */
export interface FactoryApp {
  Handler: HandlerFunc;
  Tools: ToolRegistry;
  /** The application's catalogs by locale code. */
  Catalogs: ReadonlyMap<string, Readonly<Record<string, string>>>;
  /** Called when the suite is done (the runtime `Handler`'s cleanup). */
  Close?: () => unknown;
}

/** The application's factory: it gets the origin to serve and the mailer to send with. */
export type AppFactory = (given: { Origin: string; Mailer: CapturingMailer }) => FactoryApp | Promise<FactoryApp>;

/** An answer, as the suite reads it. */
export type Reply = { status: number; headers: IncomingHttpHeaders; body: string };

/** Sends a request as the person of `cookie` (a form, when given, urlencoded; a write from `origin`, the app's by default). */
export type Send = (method: string, path: string, cookie: string, form?: Record<string, string>, origin?: string) => Promise<Reply>;

/** Sends one request to `base` on a fresh connection and reads the whole answer. */
export function exchange(base: string, method: string, path: string, headers: Record<string, string>, body?: string): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request(new URL(path, base), { method, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString("utf8") }));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end(body);
  });
}

/**
 * Starts the application `factory` builds for `describeResourceConformance`. Its `signIn(subject)` posts `email` to
 * `SigninPath`, opens the link in the mail sent to `subject` and returns the cookies as a `Cookie` header.
 */
export async function startApp(
  factory: AppFactory,
  options: { Origin?: string; SigninPath?: string; TeamsPath?: string } = {},
): Promise<ConformanceApp> {
  const origin = options.Origin ?? "http://app.test";
  const sent: CapturedMail[] = [];
  const mailer: CapturingMailer = { Sent: sent, Send: async (message) => void sent.push(message) };
  const app = await factory({ Origin: origin, Mailer: mailer });
  const server = createServer((req, res) => void app.Handler(req, res));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  // The last link under `origin` in the mail sent to `address` since the `from`th message.
  const linkTo = (address: string, from = 0): string => {
    const mail = sent.slice(from).findLast((m) => [m.To].flat().some((to) => to.includes(address)));
    const link = mail?.Text.match(/https?:\/\/\S+/g)?.find((url) => url.startsWith(`${origin}/`));
    if (link === undefined) throw new Error(`conformance: no link was mailed to ${address}`);
    return link;
  };
  const signIn = async (subject: string): Promise<string> => {
    const jar = new Map<string, string>();
    const keep = (reply: Reply): void => {
      for (const line of reply.headers["set-cookie"] ?? []) {
        const [pair = ""] = line.split(";");
        jar.set(pair.slice(0, pair.indexOf("=")), pair.slice(pair.indexOf("=") + 1));
      }
    };
    const cookie = (): string => [...jar].map(([name, value]) => `${name}=${value}`).join("; ");
    const before = sent.length;
    const form = new URLSearchParams({ email: subject }).toString();
    const headers = { Origin: origin, "Content-Type": "application/x-www-form-urlencoded" };
    keep(await exchange(base, "POST", options.SigninPath ?? "/signin", headers, form));
    const url = new URL(linkTo(subject, before));
    keep(await exchange(base, "GET", url.pathname + url.search, { Cookie: cookie() }));
    return cookie();
  };
  const close = async (): Promise<void> => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await app.Close?.();
  };
  const teamsPath = options.TeamsPath ?? "/teams";
  return {
    base,
    origin,
    signIn,
    mailedLink: async (address) => linkTo(address),
    teamsPath,
    tools: app.Tools,
    catalogs: app.Catalogs,
    close,
  };
}
