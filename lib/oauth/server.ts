/*
 * latch as the OAuth 2.1 authorization server of its own protected resources: `WellKnown` answers the metadata
 * (metadata.ts), `Handler` routes `/oauth/` to authorize.ts, token-endpoint.ts and the directory's registration, any
 * other path a JSON 404. A grant is an agent token (README, "The grant is an agent token").
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { sweepInSteps } from "../db/index.ts";
import { HTTPError, cryptoRandom, isLocalPath, systemClock, writeJSON, type HandlerFunc } from "../http/index.ts";
import { countProblem, needRoute, parseOrigin, requestTarget, writeText } from "../internal/index.ts";
import { newAuthorize } from "./authorize.ts";
import { OAuthClients } from "./clients.ts";
import type { OAuthServer, OAuthServerConfig } from "./config.ts";
import { OAuthError } from "./errors.ts";
import { grantRows } from "./grants.ts";
import { METADATA_PATHS, OAUTH_PATHS, OAUTH_SCOPES, authorizationServerMetadata } from "./metadata.ts";
import { answerJSONErrors, newTokenEndpoints } from "./token-endpoint.ts";

export { OAUTH_CODE_TTL } from "./authorize.ts";
export { OAUTH_ACCESS_TOKEN_TTL } from "./token-endpoint.ts";
export { MAX_OAUTH_PARAM } from "./authorize-request.ts";
export { agentNameOf } from "./grants.ts";
export type { ClientDirectory, Consent, OAuthServer, OAuthServerConfig } from "./config.ts";

/** How recently a person must have signed in to allow write access: 5 minutes, as the token pages ask. */
export const OAUTH_WRITE_FRESH_FOR: number = 5 * 60 * 1000;

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
  const grants = grantRows(config.DB, tokens);
  const { token, revoke } = newTokenEndpoints({ Grants: grants, Tokens: tokens, Clients: clients, Clock: clock, Random: random });

  const refuse = (req: IncomingMessage, res: ServerResponse, status: number, message: string): void => {
    if (config.ErrorPage !== undefined) return config.ErrorPage(req, res, status, message);
    writeText(res, status, message);
  };

  const authorize = newAuthorize({ config, issuer, resources, freshFor, clock, random, clients, grants, refuse });

  const notFound = (res: ServerResponse): void =>
    writeJSON(res, 404, new OAuthError("invalid_request", "no such OAuth or well-known endpoint", 404).toJSON());

  const endpoints = new Map([
    [OAUTH_PATHS.Token, token],
    [OAUTH_PATHS.Revoke, revoke],
    [OAUTH_PATHS.Register, clients.handleRegister],
  ]);
  const Handler: HandlerFunc = async (req, res) => {
    const path = requestTarget(req).split("?")[0] ?? "";
    if (path === OAUTH_PATHS.Authorize) return authorize(req, res);
    const endpoint = endpoints.get(path);
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

  const Sweep = (now: Date): Promise<{ Codes: number; RefreshTokens: number; AccessTokens: number; Clients: number }> =>
    sweepInSteps(config.DB, {
      Codes: (limit) => grants.sweepCodes(now, limit),
      RefreshTokens: (limit) => grants.sweepRefreshTokens(now, limit),
      AccessTokens: (limit) => tokens.sweepAccessTokens(now, limit),
      Clients: (limit) => clients.sweep?.(limit) ?? 0,
    });

  return Object.freeze({ Handler, WellKnown, Issuer: issuer, Resources: Object.freeze(resources), Scopes: OAUTH_SCOPES, Sweep });
}
