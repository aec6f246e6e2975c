/*
 * The authorization endpoint (`GET`/`POST /oauth/authorize`, RFC 6749 §4.1.1): the consent page for a person with a
 * session (fresh enough for write access); its decision mints the grant and a single-use code.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { isLocalPath, queryParams, readForm, seeOther, type Clock, type HandlerFunc, type RandomReader } from "../http/index.ts";
import { awayAndBack, crossOriginVerdict, isStale } from "../internal/index.ts";
import { HashToken, NewToken } from "../session/index.ts";
import { allowFormRedirect, redirectTo, validateAuthorization } from "./authorize-request.ts";
import type { ClientDirectory, OAuthServerConfig } from "./config.ts";
import { mintGrant, type GrantRows } from "./grants.ts";
import { OAUTH_PATHS } from "./metadata.ts";

/** How long an authorization code lives: 60 seconds (OAuth 2.1 §4.1.2: short, at most 10 minutes). */
export const OAUTH_CODE_TTL: number = 60 * 1000;

/** What the authorization endpoint works with: the server's config and what `newOAuthServer` derived from it. */
export interface AuthorizeContext {
  config: OAuthServerConfig;
  issuer: string;
  resources: readonly string[];
  freshFor: number;
  clock: Clock;
  random: RandomReader;
  clients: ClientDirectory;
  grants: GrantRows;
  /** Shows a refusal the client cannot be told of: the application's `ErrorPage`, else plain text. */
  refuse: (req: IncomingMessage, res: ServerResponse, status: number, message: string) => void;
}

/** Returns the authorization endpoint's handler. */
export function newAuthorize(context: AuthorizeContext): HandlerFunc {
  const { config, issuer, resources, freshFor, clock, random, clients, grants, refuse } = context;
  return async (req, res) => {
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
    const outcome = await validateAuthorization(params, req, clients, resources);
    if (!outcome.ok) {
      if ("shown" in outcome) {
        if (outcome.retryAfter !== undefined) res.setHeader("Retry-After", String(outcome.retryAfter));
        return refuse(req, res, outcome.status ?? 400, `${outcome.status ?? 400} ${outcome.shown}`);
      }
      return redirectTo(res, issuer, outcome.redirect, outcome.error.toJSON());
    }
    const request = outcome.request;
    const session = config.Sessions.read(req);
    const back = `${OAUTH_PATHS.Authorize}?${new URLSearchParams(request.fields).toString()}`;
    // A write grant lets an agent ask for changes; like the token page, it needs a recent sign-in (ASVS 5.0 §7.5.x).
    const stale = session !== undefined && request.access === "write" && isStale(session.AuthTime, clock.now(), freshFor);
    if (session === undefined || stale) {
      if (post) return refuse(req, res, 401, `401 authorization: ${stale ? "session too old, authenticate again" : "sign in first"}`);
      const path = stale ? (config.StalePath ?? config.SigninPath) : config.SigninPath;
      // Remembered in this browser too: the emailed link, the code and a passkey all return here (lib/internal next-cookie.ts).
      return seeOther(res, isLocalPath(back) ? awayAndBack(res, issuer, path, back) : `${path}?next=${encodeURIComponent(back)}`);
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
    if (decision === "deny") return redirectTo(res, issuer, request, { error: "access_denied", error_description: "the person declined" });
    if (decision !== "allow") return refuse(req, res, 400, '400 authorization: decision must be "allow" or "deny"');
    const grant = mintGrant(config.Tokens, session.Subject, request);
    if (typeof grant !== "string") return refuse(req, res, grant.status, `${grant.status} authorization: ${grant.message}`);
    const code = NewToken(random);
    const now = clock.now().getTime();
    grants.insertCode(
      {
        code_hash: HashToken(code),
        token_id: grant,
        client_id: request.client.ClientID,
        redirect_uri: request.redirectURI,
        challenge: request.challenge,
        resource: request.resource,
        expires_at: now + OAUTH_CODE_TTL,
      },
      now,
    );
    redirectTo(res, issuer, request, { code });
  };
}
