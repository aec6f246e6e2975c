/*
 * latch as the OAuth 2.1 authorization server of its own protected
 * resources. Two handlers cover every path a client may ask:
 *
 *   /.well-known/   the metadata (metadata.ts); any other well-known path
 *                   the application does not serve itself is a JSON 404
 *   /oauth/         GET  /oauth/authorize  validates the request, sends a
 *                                          person without a session to
 *                                          sign in (next = this request),
 *                                          then shows the application's
 *                                          consent page
 *                   POST /oauth/authorize  the consent page's decision
 *                   POST /oauth/token      codes and refresh tokens for
 *                                          access tokens (token-endpoint.ts)
 *                   POST /oauth/revoke     RFC 7009 (token-endpoint.ts)
 *                   POST /oauth/register   the client directory's (RFC 7591)
 *                   anything else          a JSON 404
 *
 * A grant is an agent token (latch/agent) minted with its client when the
 * person allows: listed on the person's token page, capped, revoked and
 * audited as any other. The client never holds the grant itself: a code
 * (single-use, 60 s) becomes an access token (one hour, one resource) and a
 * refresh token that rotates on every use; a replayed code or refresh
 * token revokes the grant (OAuth 2.1 §4.1.3, §4.3.1), which ends every
 * token it issued within one request.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { AgentTokens } from "../agent/index.ts";
import { sweepInSteps, type DB } from "../db/index.ts";
import {
  HTTPError,
  cryptoRandom,
  isLocalPath,
  queryParams,
  readForm,
  seeOther,
  systemClock,
  writeJSON,
  type Clock,
  type HandlerFunc,
  type RandomReader,
} from "../http/index.ts";
import { countProblem, crossOriginVerdict, needRoute, parseOrigin, rememberNext, requestTarget, writeText } from "../internal/index.ts";
import { HashToken, NewToken, type Sessions } from "../session/index.ts";
import type { OAuthClient } from "./client.ts";
import { OAuthClients } from "./clients.ts";
import { OAuthError, OAuthRetryLater } from "./errors.ts";
import { METADATA_PATHS, OAUTH_PATHS, OAUTH_SCOPES, authorizationServerMetadata } from "./metadata.ts";
import { redirectURIProblem } from "./redirect-uri.ts";
import { answerJSONErrors, newTokenEndpoints } from "./token-endpoint.ts";

/** How long an authorization code lives: 60 seconds (OAuth 2.1 §4.1.2: short, at most 10 minutes). */
export const OAUTH_CODE_TTL: number = 60 * 1000;

export { OAUTH_ACCESS_TOKEN_TTL } from "./token-endpoint.ts";

/** How recently a person must have signed in to allow write access: 5 minutes, as the token pages ask. */
export const OAUTH_WRITE_FRESH_FOR: number = 5 * 60 * 1000;

/** The longest authorization request parameter accepted (a `state`, a redirect URI), in characters. */
export const MAX_OAUTH_PARAM: number = 2048;

/** Where clients are found: latch/oauth's `OAuthClients`, or any directory of the same two methods. */
export interface ClientDirectory {
  /**
   * The client of `clientId`; rejects with `OAuthError` invalid_client when there is none. `req` is the
   * authorization request asking: whom a fetch counts for, and whether it came over loopback.
   */
  resolve(clientId: string, req?: IncomingMessage): Promise<OAuthClient>;
  /** Whether `uri` is one of `client`'s redirect URIs (exactly; RFC 8252 loopback with any port). */
  redirectAllowed(client: OAuthClient, uri: string): boolean;
  /** `POST /oauth/register` (RFC 7591); without it the server offers no registration endpoint. */
  handleRegister?: HandlerFunc;
  /** Called when the client is issued tokens: a registration in use does not expire. */
  touch?(clientId: string): void;
  /** Called by `Sweep`, one step of `sweepInSteps` (lib/db): deletes at most `limit` registrations that no longer resolve; returns how many. */
  sweep?(limit: number): number;
}

/** What the consent page shows and posts back: the application renders it, latch decides. */
export interface Consent {
  /** The client, as it named itself, and its host ("localhost" for a loopback client). */
  readonly Client: { readonly Name: string; readonly Host: string };
  /** "read", or "write" (which includes read; every write call still waits for the person's approval). */
  readonly Access: "read" | "write";
  /** The protected resource the access is for (`<origin>/mcp`). */
  readonly Resource: string;
  /** Where the form posts (`/oauth/authorize`, method POST), with `decision` "allow" or "deny". */
  readonly Action: string;
  /** Hidden fields the form must post back unchanged: the request, validated again on the decision. */
  readonly Fields: readonly (readonly [string, string])[];
}

/** What `newOAuthServer` needs. */
export interface OAuthServerConfig {
  /** The database holding the agent and oauth schemas. */
  DB: DB;
  /** The agent token store grants are minted in (give it `Events` so mints and revocations are audited). */
  Tokens: AgentTokens;
  /**
   * Where clients are found. @default latch's own: Client ID Metadata Documents fetched
   * against SSRF (trusting Node's CA store, `NODE_EXTRA_CA_CERTS` included) and RFC 7591
   * registration, in the `oauth_clients` table of `Schema`
   */
  Clients?: ClientDirectory;
  /** The session store: the person who consents is the request's session. */
  Sessions: Sessions;
  /** The application's public origin: the issuer. */
  Origin: string;
  /** Paths of the protected resources tokens may be asked for; the first is the default. @default ["/mcp", "/api/tools"] */
  Resources?: readonly string[];
  /** Where a person without a session signs in, given `?next=` the authorization request. */
  SigninPath: string;
  /** Where a session too old for write access goes (with `?next=`). @default SigninPath */
  StalePath?: string;
  /** How recently the person must have signed in to allow write access, ms. @default 5 minutes (OAUTH_WRITE_FRESH_FOR) */
  FreshFor?: number;
  /** Renders the consent page for the request's person. */
  ConsentPage: (req: IncomingMessage, res: ServerResponse, consent: Consent) => void | Promise<void>;
  /** Shows a refused request the client cannot be told of (the application's `writeError`). @default plain text */
  ErrorPage?: (req: IncomingMessage, res: ServerResponse, status: number, message: string) => void;
  /** @default systemClock */
  Clock?: Clock;
  /** @default cryptoRandom */
  Random?: RandomReader;
}

/** The server's handlers. */
export interface OAuthServer {
  /** Mount at `/oauth/` (every method). */
  Handler: HandlerFunc;
  /** Mount at `/.well-known/` (every method); the application's own well-known routes stay more specific. */
  WellKnown: HandlerFunc;
  /** The issuer (the origin), for `authorization_servers` of the resource metadata. */
  Issuer: string;
  /** The absolute URLs of the protected resources. */
  Resources: readonly string[];
  /** The scopes, for `scopes_supported` of the resource metadata. */
  Scopes: readonly string[];
  /**
   * Deletes what can no longer be used, in `sweepInSteps`' bounded steps
   * (lib/db), one table after another: codes lapsed or of an ended grant, the refresh and access
   * tokens of grants revoked or expired, access tokens expired, and the
   * client directory's unused registrations. Call it on the application's
   * sweep interval, with sign-in's `Sweep`. Resolves with what it deleted.
   */
  Sweep(now: Date): Promise<{ Codes: number; RefreshTokens: number; AccessTokens: number; Clients: number }>;
}

/** A validated authorization request. */
interface AuthorizationRequest {
  client: OAuthClient;
  redirectURI: string;
  state: string | undefined;
  challenge: string;
  resource: string;
  access: "read" | "write";
  fields: [string, string][];
}

/** RFC 7636 §4.1: an S256 challenge is 43 base64url characters. */
const S256_CHALLENGE = /^[A-Za-z0-9_-]{43}$/;

/** The request parameters echoed through the consent form. */
const REQUEST_FIELDS = [
  "response_type",
  "client_id",
  "redirect_uri",
  "state",
  "code_challenge",
  "code_challenge_method",
  "resource",
  "scope",
];

/** Returns the agent name of a client: `client_name` lowercased to `AGENT_NAME_PATTERN`, "client" when nothing is left. */
export function agentNameOf(clientName: string): string {
  const name = clientName
    .normalize("NFKD")
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, "-")
    .replace(/-{2,}/g, "-")
    .replace(/^[._-]+/, "")
    .slice(0, 56)
    .replace(/[._-]+$/, "");
  return name === "" ? "client" : name;
}

/**
 * Returns the authorization server for `config`. Throws `HTTPError`
 * `ERR_HTTP_INVALID_OPTIONS` for a bad `Origin`, `SigninPath`, `StalePath`
 * or resource path.
 *
 * @example
 * const oauth = newOAuthServer({ DB: db, Tokens, Clients, Sessions: auth.Sessions, Origin, SigninPath: "/signin", ConsentPage });
 * mux.Handle("/oauth/", oauth.Handler);
 * mux.Handle("/.well-known/", oauth.WellKnown);
 */
export function newOAuthServer(config: OAuthServerConfig): OAuthServer {
  const issuer = parseOrigin(config.Origin);
  if (issuer === undefined) throw new HTTPError("ERR_HTTP_INVALID_OPTIONS", "oauth server: Origin must be an http or https URL");
  for (const [field, path] of [
    ["SigninPath", config.SigninPath],
    ["StalePath", config.StalePath ?? config.SigninPath],
    ...(config.Resources ?? []).map((p) => ["Resources", p]),
  ]) {
    if (typeof path !== "string" || !isLocalPath(path))
      throw new HTTPError("ERR_HTTP_INVALID_OPTIONS", `oauth server: ${field} must be a local path`);
  }
  const cookieOrigin: string = issuer;
  const freshFor = config.FreshFor ?? OAUTH_WRITE_FRESH_FOR;
  if (countProblem(freshFor) !== undefined)
    throw new HTTPError("ERR_HTTP_INVALID_OPTIONS", "oauth server: FreshFor must be a whole number of ms");
  const resources = (config.Resources ?? ["/mcp", "/api/tools"]).map((p) => new URL(p, issuer).href);
  const clock = config.Clock ?? systemClock;
  const random = config.Random ?? cryptoRandom;
  const tokens = config.Tokens;
  const clients =
    config.Clients ?? new OAuthClients(config.DB, { Origin: config.Origin, ...(config.Clock !== undefined && { clock: config.Clock }) });
  const metadata = authorizationServerMetadata(issuer, clients.handleRegister !== undefined);
  const metadataPaths = new Set(METADATA_PATHS.flatMap((base) => [base, ...resources.map((r) => base + new URL(r).pathname)]));
  const db = config.DB;

  const insertCode = db.prepare(
    `INSERT INTO oauth_codes (code_hash, token_id, client_id, redirect_uri, challenge, resource, expires_at)
     VALUES (@code_hash, @token_id, @client_id, @redirect_uri, @challenge, @resource, @expires_at)`,
  );
  const lapsedCodes = db.prepare<[number]>("DELETE FROM oauth_codes WHERE expires_at <= ?");
  // A grant has ended when it is revoked (the token page, a replay, /oauth/revoke) or has expired.
  const ended = "(t.revoked_at IS NOT NULL OR t.expires_at <= @now)";
  const sweepCodes = db.prepare<[{ now: number; batch: number }]>(
    `DELETE FROM oauth_codes WHERE rowid IN (SELECT c.rowid FROM oauth_codes c JOIN agent_tokens t ON t.id = c.token_id
     WHERE c.expires_at <= @now OR ${ended} LIMIT @batch)`,
  );
  const sweepRefresh = db.prepare<[{ now: number; batch: number }]>(
    `DELETE FROM oauth_refresh_tokens WHERE rowid IN (SELECT r.rowid FROM oauth_refresh_tokens r JOIN agent_tokens t ON t.id = r.token_id
     WHERE ${ended} LIMIT @batch)`,
  );
  const sweepAccess = db.prepare<[{ now: number; batch: number }]>(
    `DELETE FROM agent_access_tokens WHERE rowid IN (SELECT a.rowid FROM agent_access_tokens a JOIN agent_tokens t ON t.id = a.token_id
     WHERE a.expires_at <= @now OR ${ended} LIMIT @batch)`,
  );
  const { token, revoke } = newTokenEndpoints({ DB: db, Tokens: tokens, Clients: clients, Clock: clock, Random: random });

  const refuse = (req: IncomingMessage, res: ServerResponse, status: number, message: string): void => {
    if (config.ErrorPage !== undefined) return config.ErrorPage(req, res, status, message);
    writeText(res, status, message);
  };

  /** Redirects an authorization response to the client (RFC 6749 §4.1.2, RFC 9207 §2: with iss). */
  const redirectTo = (res: ServerResponse, request: AuthorizationRequest, params: Record<string, string>): void => {
    const url = new URL(request.redirectURI);
    for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value);
    if (request.state !== undefined) url.searchParams.set("state", request.state);
    url.searchParams.set("iss", issuer);
    res.statusCode = 302;
    res.setHeader("Location", url.href);
    res.setHeader("Cache-Control", "no-store");
    res.end();
  };

  /**
   * Validates an authorization request: the client and its redirect URI
   * first (an error before them is the person's to see, never redirected:
   * RFC 6749 §4.1.2.1), then the rest (an error redirected to the client).
   */
  async function validate(
    params: URLSearchParams,
    req: IncomingMessage,
  ): Promise<
    | { ok: true; request: AuthorizationRequest }
    | { ok: false; shown: string; status?: number; retryAfter?: number }
    | { ok: false; redirect: AuthorizationRequest; error: OAuthError }
  > {
    for (const name of REQUEST_FIELDS) {
      if (params.getAll(name).length > 1) return { ok: false, shown: `authorization request: ${name} given twice` };
      if ((params.get(name) ?? "").length > MAX_OAUTH_PARAM) return { ok: false, shown: `authorization request: ${name} too long` };
    }
    const clientID = params.get("client_id") ?? "";
    if (clientID === "") return { ok: false, shown: "authorization request: client_id missing" };
    let client: OAuthClient;
    try {
      client = await clients.resolve(clientID, req);
    } catch (err) {
      // RFC 6585 §4, RFC 9110 §15.6.4: past the directory's fetch bounds, 429 or 503 with Retry-After.
      if (err instanceof OAuthRetryLater)
        return { ok: false, shown: `authorization request: ${err.message}`, status: err.status, retryAfter: err.retryAfter };
      if (err instanceof OAuthError) return { ok: false, shown: `authorization request: ${err.message}` };
      throw err;
    }
    const redirectURI = params.get("redirect_uri") ?? "";
    // OAuth 2.1 §4.1.1, RFC 9700 §2.1: the redirect URI is compared exactly with a registered one, never guessed.
    // RFC 6335 §6 (a port within 1-65535) too, whatever the directory says: the redirect must be possible before a grant is made.
    if (redirectURI === "" || redirectURIProblem(redirectURI) !== undefined || !clients.redirectAllowed(client, redirectURI)) {
      return { ok: false, shown: "authorization request: redirect_uri is not one of the client's" };
    }
    const state = params.get("state") ?? undefined;
    const base = { client, redirectURI, state, challenge: "", resource: "", access: "read" as const, fields: [] };
    const fail = (error: OAuthError) => ({ ok: false as const, redirect: base, error });
    if (params.get("response_type") !== "code") return fail(new OAuthError("unsupported_response_type", "response_type must be code"));
    const challenge = params.get("code_challenge") ?? "";
    // OAuth 2.1 §4.1.1, MCP 2025-11-25 authorization §Authorization Code Protection: PKCE is required, S256 only.
    if (challenge === "") return fail(new OAuthError("invalid_request", "code_challenge is required (PKCE, S256)"));
    if (params.get("code_challenge_method") !== "S256")
      return fail(new OAuthError("invalid_request", "code_challenge_method must be S256"));
    if (!S256_CHALLENGE.test(challenge)) return fail(new OAuthError("invalid_request", "code_challenge must be 43 base64url characters"));
    const asked = params.get("resource");
    // RFC 8707 §2: the resource must be one this server protects; without one, the first (the MCP endpoint).
    const resource = asked === null ? resources[0] : resources.find((r) => r === URL.parse(asked)?.href && !asked.includes("#"));
    if (resource === undefined) return fail(new OAuthError("invalid_target", "resource is not a resource of this server"));
    const scopes = (params.get("scope") ?? "read").split(" ").filter((s) => s !== "");
    if (scopes.some((s) => !OAUTH_SCOPES.includes(s)))
      return fail(new OAuthError("invalid_scope", `scope must be among: ${OAUTH_SCOPES.join(" ")}`));
    const access = scopes.includes("write") ? "write" : "read";
    const fields = REQUEST_FIELDS.flatMap((name): [string, string][] => {
      const value = params.get(name);
      return value === null ? [] : [[name, value]];
    });
    return { ok: true, request: { client, redirectURI, state, challenge, resource, access, fields } };
  }

  async function authorize(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (req.method !== "GET" && req.method !== "POST") {
      res.setHeader("Allow", "GET, POST");
      return refuse(req, res, 405, "405 method not allowed");
    }
    const post = req.method === "POST";
    if (post && crossOriginVerdict(req, issuer) === "cross-origin") {
      // OWASP ASVS 5.0 §10.4.x / RFC 9700 §4.4.1.9: a consent decision comes from this origin's page only.
      return refuse(req, res, 403, "403 forbidden: cross-origin request refused");
    }
    const params = post ? await readForm(req) : queryParams(req);
    const outcome = await validate(params, req);
    if (!outcome.ok) {
      if ("shown" in outcome) {
        if (outcome.retryAfter !== undefined) res.setHeader("Retry-After", String(outcome.retryAfter));
        return refuse(req, res, outcome.status ?? 400, `${outcome.status ?? 400} ${outcome.shown}`);
      }
      return redirectTo(res, outcome.redirect, outcome.error.toJSON());
    }
    const request = outcome.request;
    const session = config.Sessions.read(req);
    const back = `${OAUTH_PATHS.Authorize}?${new URLSearchParams(request.fields).toString()}`;
    if (session === undefined) {
      if (post) return refuse(req, res, 401, "401 authorization: sign in first");
      // Remembered in this browser too: the emailed link, the code and a passkey all return here (lib/internal next-cookie.ts).
      if (isLocalPath(back)) rememberNext(res, cookieOrigin, back);
      return seeOther(res, `${config.SigninPath}?next=${encodeURIComponent(back)}`);
    }
    // A write grant lets an agent ask for changes; like the token page, it needs a recent sign-in (ASVS 5.0 §7.5.x).
    if (request.access === "write" && clock.now().getTime() - session.AuthTime.getTime() > freshFor) {
      if (post) return refuse(req, res, 401, "401 authorization: session too old, authenticate again");
      if (isLocalPath(back)) rememberNext(res, cookieOrigin, back);
      return seeOther(res, `${config.StalePath ?? config.SigninPath}?next=${encodeURIComponent(back)}`);
    }
    if (!post) {
      allowFormRedirect(res, request.redirectURI);
      return config.ConsentPage(req, res, {
        Client: { Name: request.client.Name, Host: request.client.Host },
        Access: request.access,
        Resource: request.resource,
        Action: OAUTH_PATHS.Authorize,
        Fields: request.fields,
      });
    }
    const decision = params.get("decision");
    if (decision === "deny") return redirectTo(res, request, { error: "access_denied", error_description: "the person declined" });
    if (decision !== "allow") return refuse(req, res, 400, '400 authorization: decision must be "allow" or "deny"');
    const grant = mintGrant(session.Subject, request);
    if (typeof grant !== "string") return refuse(req, res, grant.status, `${grant.status} authorization: ${grant.message}`);
    const code = NewToken(random);
    const now = clock.now().getTime();
    lapsedCodes.run(now);
    insertCode.run({
      code_hash: HashToken(code),
      token_id: grant,
      client_id: request.client.ClientID,
      redirect_uri: request.redirectURI,
      challenge: request.challenge,
      resource: request.resource,
      expires_at: now + OAUTH_CODE_TTL,
    });
    redirectTo(res, request, { code });
  }

  /** Mints the grant: an agent token named after the client, unique among the person's live tokens (-2, -3, …). */
  function mintGrant(subject: string, request: AuthorizationRequest): string | { status: number; message: string } {
    const taken = new Set(tokens.list(subject).map((t) => t.Name));
    const base = agentNameOf(request.client.Name);
    let name = base;
    for (let n = 2; taken.has(name); n++) name = `${base}-${n}`;
    try {
      const { Info } = tokens.mint({
        Subject: subject,
        Name: name,
        Access: request.access,
        Client: { ID: request.client.ClientID, Name: request.client.Name, Host: request.client.Host },
      });
      return Info.ID;
    } catch (err) {
      if (err instanceof Error && "status" in err && typeof err.status === "number") return { status: err.status, message: err.message };
      throw err;
    }
  }

  const notFound = (res: ServerResponse): void =>
    writeJSON(res, 404, new OAuthError("invalid_request", "no such OAuth or well-known endpoint", 404).toJSON());

  const Handler: HandlerFunc = async (req, res) => {
    const path = requestTarget(req).split("?")[0];
    if (path === OAUTH_PATHS.Authorize) return authorize(req, res);
    const endpoint =
      path === OAUTH_PATHS.Token
        ? token
        : path === OAUTH_PATHS.Revoke
          ? revoke
          : path === OAUTH_PATHS.Register
            ? clients.handleRegister
            : undefined;
    if (endpoint === undefined) return notFound(res);
    if (req.method !== "POST") {
      res.setHeader("Allow", "POST");
      return writeJSON(res, 405, new OAuthError("invalid_request", "method not allowed: use POST", 405).toJSON());
    }
    // RFC 6749 §5.2, RFC 7591 §3.2.2: a client reads every refusal of these endpoints as JSON, an oversized body's too.
    return answerJSONErrors(endpoint)(req, res);
  };

  // The pages a person without a (fresh enough) session is sent to are the application's: the runtime warns at boot when unrouted.
  needRoute(Handler, { Path: config.SigninPath, Option: "newOAuthServer SigninPath" });
  if (config.StalePath !== undefined && config.StalePath !== config.SigninPath) {
    needRoute(Handler, { Path: config.StalePath, Option: "newOAuthServer StalePath" });
  }

  const WellKnown: HandlerFunc = (req, res) => {
    const path = requestTarget(req).split("?")[0] ?? "";
    if (!metadataPaths.has(path)) return notFound(res);
    if (req.method !== "GET" && req.method !== "HEAD") {
      res.setHeader("Allow", "GET, HEAD");
      return writeJSON(res, 405, new OAuthError("invalid_request", "method not allowed: use GET", 405).toJSON());
    }
    writeJSON(res, 200, metadata);
  };

  const Sweep = (now: Date): Promise<{ Codes: number; RefreshTokens: number; AccessTokens: number; Clients: number }> => {
    const at = now.getTime();
    return sweepInSteps(db, {
      Codes: (batch) => sweepCodes.run({ now: at, batch }).changes,
      RefreshTokens: (batch) => sweepRefresh.run({ now: at, batch }).changes,
      AccessTokens: (batch) => sweepAccess.run({ now: at, batch }).changes,
      Clients: (batch) => clients.sweep?.(batch) ?? 0,
    });
  };

  return Object.freeze({ Handler, WellKnown, Issuer: issuer, Resources: Object.freeze(resources), Scopes: OAUTH_SCOPES, Sweep });
}

/**
 * Adds the client's redirect URI to the page's `form-action` (CSP Level 3
 * §6.4.1: browsers check form-action against the redirect that answers a
 * form too), so Allow and Decline reach the client; the rest of the
 * application's policy stays as it is.
 */
function allowFormRedirect(res: ServerResponse, redirectURI: string): void {
  const csp = res.getHeader("Content-Security-Policy");
  if (typeof csp !== "string") return;
  const url = new URL(redirectURI);
  // A web or loopback URI is allowed by its origin; a private-use scheme (RFC 8252 §7.1) by the scheme.
  const source = url.protocol === "http:" || url.protocol === "https:" ? url.origin : url.protocol;
  res.setHeader(
    "Content-Security-Policy",
    csp.replace(
      /(^|;\s*)form-action ([^;]*)/,
      (_all, before: string, sources: string) => `${before}form-action ${sources.trim()} ${source}`,
    ),
  );
}
