/*
 * An authorization request (RFC 6749 §4.1.1, OAuth 2.1 §4.1.1): its validation in the order that decides who sees an
 * error (the person, or the client by redirect), the redirect back, and the consent page's CSP edit that allows it.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { PKCE_CHALLENGE, PKCE_METHOD } from "../internal/index.ts";
import type { OAuthClient } from "./client.ts";
import { OAuthError, OAuthRetryLater } from "./errors.ts";
import { OAUTH_SCOPES } from "./metadata.ts";
import { redirectURIProblem } from "./redirect-uri.ts";

/** The longest authorization request parameter accepted (a `state`, a redirect URI), in characters. */
export const MAX_OAUTH_PARAM: number = 2048;

/** A validated authorization request. */
export interface AuthorizationRequest {
  client: OAuthClient;
  redirectURI: string;
  state: string | undefined;
  challenge: string;
  resource: string;
  access: "read" | "write";
  fields: [string, string][];
}

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

/** What validation asks of the client directory (`ClientDirectory`). */
interface RequestClients {
  resolve(clientId: string, req?: IncomingMessage): Promise<OAuthClient>;
  redirectAllowed(client: OAuthClient, uri: string): boolean;
}

/** Redirects an authorization response to the client (RFC 6749 §4.1.2, RFC 9207 §2: with iss). */
export function redirectTo(res: ServerResponse, issuer: string, request: AuthorizationRequest, params: Record<string, string>): void {
  const url = new URL(request.redirectURI);
  for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value);
  if (request.state !== undefined) url.searchParams.set("state", request.state);
  url.searchParams.set("iss", issuer);
  res.statusCode = 302;
  res.setHeader("Location", url.href);
  res.setHeader("Cache-Control", "no-store");
  res.end();
}

/**
 * Validates an authorization request: the client and its redirect URI first (an error before them is the person's to
 * see, never redirected: RFC 6749 §4.1.2.1), then the rest (an error redirected to the client).
 */
export async function validateAuthorization(
  params: URLSearchParams,
  req: IncomingMessage,
  clients: RequestClients,
  resources: readonly string[],
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
  if (params.get("code_challenge_method") !== PKCE_METHOD)
    return fail(new OAuthError("invalid_request", "code_challenge_method must be S256"));
  if (!PKCE_CHALLENGE.test(challenge)) return fail(new OAuthError("invalid_request", "code_challenge must be 43 base64url characters"));
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

/**
 * Adds the client's redirect URI to the page's `form-action` (CSP Level 3 §6.4.1: browsers check form-action against
 * the redirect that answers a form too), so Allow and Decline reach the client; the rest of the application's policy
 * stays as it is.
 */
export function allowFormRedirect(res: ServerResponse, redirectURI: string): void {
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
