/*
 * `POST /oauth/token` and `POST /oauth/revoke`, and the JSON every refusal under `/oauth/` but the person's
 * authorization page answers (README, "What it serves").
 */
import type { IncomingMessage } from "node:http";
import type { AgentTokens } from "../agent/index.ts";
import { isLatchError, readForm, writeJSON, type Clock, type HandlerFunc, type RandomReader } from "../http/index.ts";
import { PKCE_VERIFIER, computeCodeChallenge, equalSecret, mediaType } from "../internal/index.ts";
import { HashToken, NewToken } from "../session/index.ts";
import type { OAuthClient } from "./client.ts";
import { OAuthError } from "./errors.ts";
import type { GrantRows } from "./grants.ts";
import { OAUTH_SCOPES } from "./metadata.ts";

/** How long an access token lives: one hour; the client refreshes it. */
export const OAUTH_ACCESS_TOKEN_TTL: number = 60 * 60 * 1000;

/** What the token endpoints need of the server. */
export interface TokenEndpointConfig {
  Grants: GrantRows;
  Tokens: AgentTokens;
  /** The client directory's `resolve` (given the request: a fetch counts for its client, loopback only over loopback) and optional `touch`. */
  Clients: { resolve(clientId: string, req?: IncomingMessage): Promise<OAuthClient>; touch?(clientId: string): void };
  Clock: Clock;
  Random: RandomReader;
}

/** Returns `POST /oauth/token` and `POST /oauth/revoke` over `config`'s grants; each throws its refusals (`answerJSONErrors` answers them). */
export function newTokenEndpoints(config: TokenEndpointConfig): { token: HandlerFunc; revoke: HandlerFunc } {
  const { Grants: grants, Tokens: tokens, Clients: clients, Clock: clock, Random: random } = config;

  /** Whether `clientID`, as its directory knows it now, registered the refresh_token grant type. */
  const mayRefresh = async (clientID: string, req: IncomingMessage): Promise<boolean> =>
    (await clients.resolve(clientID, req)).GrantTypes.includes("refresh_token");

  /** Issues an access token of grant `id` (RFC 6749 §5.1), and a fresh refresh token when `refreshable`. */
  function issue(id: string, resource: string, access: string, refreshable: boolean): Record<string, unknown> {
    const issued = tokens.issueAccessToken(id, resource, OAUTH_ACCESS_TOKEN_TTL);
    if (issued === undefined) throw new OAuthError("invalid_grant", "the grant has been revoked or has expired");
    const refresh = refreshable ? NewToken(random) : undefined;
    if (refresh !== undefined) grants.insertRefresh(HashToken(refresh), id, resource, clock.now().getTime());
    return {
      access_token: issued.Token,
      token_type: "Bearer",
      expires_in: OAUTH_ACCESS_TOKEN_TTL / 1000,
      ...(refresh === undefined ? {} : { refresh_token: refresh }),
      scope: access === "write" ? "read write" : "read",
    };
  }

  async function exchangeCode(form: URLSearchParams, req: IncomingMessage): Promise<Record<string, unknown>> {
    const code = required(form, "code");
    const clientID = required(form, "client_id");
    const verifier = required(form, "code_verifier");
    const redirectURI = required(form, "redirect_uri");
    const hash = HashToken(code);
    const row = grants.findCode(hash);
    if (row === undefined) throw new OAuthError("invalid_grant", "unknown or expired code");
    // RFC 6749 §4.1.3: client, redirect URI and verifier are checked before the code is spent; a mismatch spends and revokes nothing.
    if (row.client_id !== clientID) throw new OAuthError("invalid_grant", "code was issued to another client");
    if (row.redirect_uri !== redirectURI) throw new OAuthError("invalid_grant", "redirect_uri differs from the authorization request's");
    // RFC 7636 §4.6: BASE64URL(SHA256(verifier)) equals the challenge, compared in constant time.
    if (!PKCE_VERIFIER.test(verifier) || !equalSecret(computeCodeChallenge(verifier), row.challenge)) {
      throw new OAuthError("invalid_grant", "code_verifier does not match the code_challenge");
    }
    const resource = form.get("resource");
    if (resource !== null && URL.parse(resource)?.href !== row.resource) {
      throw new OAuthError("invalid_target", "resource differs from the authorization request's");
    }
    const refreshable = await mayRefresh(clientID, req);
    // OAuth 2.1 §4.1.3: a code is used once; a second use, by whoever holds its verifier, revokes what the first issued.
    if (!grants.spendCode(hash, clock.now().getTime())) {
      grants.end(row.token_id);
      throw new OAuthError("invalid_grant", "code already used; the grant it issued is revoked");
    }
    if (row.expires_at <= clock.now().getTime()) throw new OAuthError("invalid_grant", "unknown or expired code");
    clients.touch?.(clientID);
    return issue(row.token_id, row.resource, row.access, refreshable);
  }

  async function refresh(form: URLSearchParams, req: IncomingMessage): Promise<Record<string, unknown>> {
    const token = required(form, "refresh_token");
    const clientID = required(form, "client_id");
    const hash = HashToken(token);
    const row = grants.findRefresh(hash);
    if (row === undefined || row.client_id !== clientID) throw new OAuthError("invalid_grant", "unknown refresh token");
    // RFC 6749 §5.2 unauthorized_client, OWASP ASVS 5.0 §10.4.4: only a client registered with the refresh_token grant type refreshes.
    if (!(await mayRefresh(clientID, req))) {
      throw new OAuthError("unauthorized_client", "the client is not registered for the refresh_token grant type");
    }
    const resource = form.get("resource");
    if (resource !== null && URL.parse(resource)?.href !== row.resource) {
      throw new OAuthError("invalid_target", "resource differs from the grant's");
    }
    const scopes = (form.get("scope") ?? "").split(" ").filter((s) => s !== "");
    if (scopes.some((s) => !OAUTH_SCOPES.includes(s)) || (row.access === "read" && scopes.includes("write"))) {
      throw new OAuthError("invalid_scope", "scope exceeds the grant");
    }
    // OAuth 2.1 §4.3.1, RFC 9700 §4.14.2: refresh tokens rotate; an old one presented again revokes the whole grant.
    if (!grants.spendRefresh(hash, clock.now().getTime())) {
      grants.end(row.token_id);
      throw new OAuthError("invalid_grant", "refresh token already used; the grant is revoked");
    }
    clients.touch?.(clientID);
    return issue(row.token_id, row.resource, row.access, true);
  }

  const token: HandlerFunc = async (req, res) => {
    const form = await tokenForm(req);
    const grantType = required(form, "grant_type");
    let body: Record<string, unknown>;
    if (grantType === "authorization_code") body = await exchangeCode(form, req);
    else if (grantType === "refresh_token") body = await refresh(form, req);
    else throw new OAuthError("unsupported_grant_type", "grant_type must be authorization_code or refresh_token");
    res.setHeader("Pragma", "no-cache");
    writeJSON(res, 200, body);
  };

  const revoke: HandlerFunc = async (req, res) => {
    const form = await tokenForm(req);
    const token = required(form, "token");
    const clientID = required(form, "client_id");
    const row = grants.findRefresh(HashToken(token));
    // RFC 7009 §2.1: revoking a refresh token ends its grant; an access token ends alone.
    if (row !== undefined && row.client_id === clientID) grants.end(row.token_id);
    else tokens.revokeAccessToken(token, clientID);
    // RFC 7009 §2.2: 200 also for a token unknown or already revoked: its state is not disclosed.
    res.setHeader("Pragma", "no-cache");
    writeJSON(res, 200, {});
  };

  return { token, revoke };
}

/**
 * Wraps an `/oauth/` endpoint a client calls so that every refusal answers RFC 6749 §5.2 JSON, never cached: its
 * `OAuthError`s, and a body the readers refuse (413 too large or too fragmented, 415, 400) as invalid_request with the
 * reader's status and words. A server fault stays the runtime's (logged under a reference it alone has).
 */
export function answerJSONErrors(endpoint: HandlerFunc): HandlerFunc {
  return async (req, res) => {
    try {
      await endpoint(req, res);
    } catch (err) {
      const status = isLatchError(err) ? err.status : undefined;
      const refusal =
        err instanceof OAuthError
          ? err
          : status !== undefined && status >= 400 && status < 500
            ? new OAuthError("invalid_request", err instanceof Error ? err.message : "", status)
            : undefined;
      if (refusal === undefined || res.headersSent) throw err;
      // A body not all read is not read on (lib/runtime/README.md#connections): the answer closes the connection.
      if (!req.complete) res.setHeader("Connection", "close");
      res.setHeader("Pragma", "no-cache");
      writeJSON(res, refusal.status, refusal.toJSON());
    }
  };
}

/** Reads a token or revocation request: form-encoded (RFC 6749 §4.1.3, RFC 7009 §2.1), else invalid_request. */
async function tokenForm(req: IncomingMessage): Promise<URLSearchParams> {
  if (mediaType(req) !== "application/x-www-form-urlencoded") {
    throw new OAuthError("invalid_request", "send application/x-www-form-urlencoded");
  }
  const form = await readForm(req);
  for (const name of new Set(form.keys())) {
    // RFC 6749 §3.2: parameters must not be included more than once.
    if (form.getAll(name).length > 1) throw new OAuthError("invalid_request", `${name} given twice`);
  }
  return form;
}

/** Returns form field `name`, or throws invalid_request naming it. */
function required(form: URLSearchParams, name: string): string {
  const value = form.get(name) ?? "";
  if (value === "") throw new OAuthError("invalid_request", `${name} is required`);
  return value;
}
