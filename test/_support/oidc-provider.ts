/*
 * A real OpenID Connect provider for tests: `oidc-provider` (v9) on a
 * node:http server at 127.0.0.1, with its development login and consent
 * pages, plus a WebFinger endpoint on the same origin. `authorize` drives
 * those pages over plain HTTP with a cookie jar (`CookieJar`), the way a browser
 * would, and returns the URL the provider redirects back to instead of
 * following it.
 *
 * oidc-provider ships no type declarations, so it is imported through a
 * specifier variable and narrowed at run time to the few members used.
 */
import { generateKeyPairSync } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { CookieJar } from "./http-client.ts";
import { listen } from "./server.ts";

/** Signature algorithms the test provider can sign ID tokens with. */
export type TestIDTokenAlg = "RS256" | "ES256" | "EdDSA";

/** Options of `startOIDCProvider`. */
export interface TestProviderOptions {
  /** The app's origin: registered as client_id, with `<origin>/auth/callback` as redirect URI. */
  clientOrigin: string;
  /** Accounts by email address; the login form's "login" field names one. */
  accounts: Record<string, { email_verified: boolean }>;
  /** Addresses WebFinger reports as claimed at this issuer. */
  claimed: string[];
  /** @default "RS256" */
  idTokenAlg?: TestIDTokenAlg;
  /** When true, WebFinger requests are held open and never answered. */
  stallWebFinger?: boolean;
}

/** How `authorize` answers the provider's pages. */
export interface AuthorizeOptions {
  /** The account to log in as. @default the request's login_hint */
  login?: string;
  /** Abort at the login page instead of logging in (the provider answers access_denied). */
  deny?: boolean;
}

/** A running test provider. */
export interface TestProvider {
  /** The issuer identifier, `http://127.0.0.1:<port>`. */
  issuer: string;
  /** Follows an authorization URL through login and consent; returns the redirect back to the app. */
  authorize(url: string, options?: AuthorizeOptions): Promise<URL>;
  /** Number of WebFinger requests received. */
  webfingerRequests(): number;
  /** Stops the server, cutting open connections (stalled WebFinger requests too). */
  close(): Promise<void>;
}

interface ProviderInstance {
  callback(): (req: IncomingMessage, res: ServerResponse) => void;
}
type ProviderConstructor = new (issuer: string, configuration: object) => ProviderInstance;

function hasProvider(mod: unknown): mod is { Provider: ProviderConstructor } {
  return typeof mod === "object" && mod !== null && "Provider" in mod && typeof mod.Provider === "function";
}

async function loadProvider(): Promise<ProviderConstructor> {
  const specifier: string = "oidc-provider";
  const mod: unknown = await import(specifier);
  if (!hasProvider(mod)) throw new Error("oidc-provider: no Provider export");
  return mod.Provider;
}

function signingKeys(): object[] {
  return [
    generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey.export({ format: "jwk" }),
    generateKeyPairSync("ec", { namedCurve: "P-256" }).privateKey.export({ format: "jwk" }),
    generateKeyPairSync("ed25519").privateKey.export({ format: "jwk" }),
  ];
}

/** Starts a provider and its WebFinger endpoint on 127.0.0.1, port 0. */
export async function startOIDCProvider(options: TestProviderOptions): Promise<TestProvider> {
  const Provider = await loadProvider();
  const { server, base: issuer, close } = await listen();
  const accounts = new Map(Object.entries(options.accounts));
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: options.clientOrigin,
        redirect_uris: [`${options.clientOrigin}/auth/callback`],
        token_endpoint_auth_method: "none",
        grant_types: ["authorization_code"],
        response_types: ["code"],
        id_token_signed_response_alg: options.idTokenAlg ?? "RS256",
      },
    ],
    jwks: { keys: signingKeys() },
    claims: { openid: ["sub"], email: ["email", "email_verified"] },
    // Put the email claims in the ID token itself rather than only behind userinfo.
    conformIdTokenClaims: false,
    // claimsParameter: the client asks for auth_time in the ID token (OIDC Core §5.5).
    features: { devInteractions: { enabled: true }, claimsParameter: { enabled: true } },
    ttl: { AccessToken: 600, AuthorizationCode: 60, Grant: 600, IdToken: 600, Interaction: 600, Session: 600 },
    findAccount: (_ctx: unknown, sub: string) => {
      const account = accounts.get(sub);
      if (account === undefined) return undefined;
      return {
        accountId: sub,
        claims: () => ({ sub, email: sub, email_verified: account.email_verified }),
      };
    },
  });
  const handle = provider.callback();
  let webfingerCount = 0;
  server.on("request", (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? "/", issuer);
    if (url.pathname !== "/.well-known/webfinger") {
      handle(req, res);
      return;
    }
    webfingerCount++;
    if (options.stallWebFinger === true) return;
    answerWebFinger(url, issuer, options.claimed, res);
  });
  return {
    issuer,
    authorize: (url, authorizeOptions = {}) => drive(new URL(url), options.clientOrigin, authorizeOptions),
    webfingerRequests: () => webfingerCount,
    close,
  };
}

function answerWebFinger(url: URL, issuer: string, claimed: string[], res: ServerResponse): void {
  const resource = url.searchParams.get("resource") ?? "";
  const address = resource.startsWith("acct:") ? resource.slice("acct:".length) : "";
  if (!claimed.includes(address)) {
    res.writeHead(404, { "content-type": "application/jrd+json" }).end("{}");
    return;
  }
  const jrd = { subject: resource, links: [{ rel: "http://openid.net/specs/connect/1.0/issuer", href: issuer }] };
  res.writeHead(200, { "content-type": "application/jrd+json" }).end(JSON.stringify(jrd));
}

/** Drives the provider's pages until it redirects to the app's callback; at most 12 steps. */
async function drive(start: URL, clientOrigin: string, options: AuthorizeOptions): Promise<URL> {
  const jar = new CookieJar();
  const login = options.login ?? start.searchParams.get("login_hint") ?? "";
  let next: { url: URL; form?: URLSearchParams } = { url: start };
  for (let step = 0; step < 12; step++) {
    const res = await send(next.url, jar, next.form);
    const location = res.headers.get("location");
    if (location !== null) {
      const target = new URL(location, next.url);
      if (target.origin === clientOrigin) return target;
      next = { url: target };
      continue;
    }
    const page = await res.text();
    if (res.status !== 200) throw new Error(`authorize: provider answered ${res.status}: ${page.slice(0, 200)}`);
    const action = /<form[^>]*action="([^"]+)"/.exec(page)?.[1]?.replaceAll("&amp;", "&");
    const prompt = /name="prompt" value="([a-z]+)"/.exec(page)?.[1];
    if (action === undefined || prompt === undefined) throw new Error("authorize: page has no interaction form");
    const formURL = new URL(action, next.url);
    if (options.deny === true) next = { url: new URL(`${formURL.pathname}/abort`, formURL) };
    else if (prompt === "login") next = { url: formURL, form: new URLSearchParams({ prompt, login, password: "x" }) };
    else next = { url: formURL, form: new URLSearchParams({ prompt }) };
  }
  throw new Error("authorize: too many steps");
}

async function send(url: URL, jar: CookieJar, form?: URLSearchParams): Promise<Response> {
  const headers: Record<string, string> = {};
  const cookie = jar.header();
  if (cookie !== undefined) headers["cookie"] = cookie;
  const init: RequestInit = { redirect: "manual", headers };
  if (form !== undefined) {
    headers["content-type"] = "application/x-www-form-urlencoded";
    init.method = "POST";
    init.body = form.toString();
  }
  const res = await fetch(url, init);
  jar.store(res.headers.getSetCookie());
  return res;
}
