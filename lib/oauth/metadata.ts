/*
 * Authorization server metadata (RFC 8414), the same document at each well-known path a client looks in, the resource's
 * path appended or not (MCP 2025-11-25 authorization §Authorization Server Metadata Discovery): the issuer is the origin.
 */
import { PKCE_METHOD } from "../internal/index.ts";

/** The scopes a grant may carry: the agent token accesses; "write" includes "read". */
export const OAUTH_SCOPES: readonly string[] = Object.freeze(["read", "write"]);

/** The endpoint paths, fixed so the metadata and the handlers cannot disagree. */
export const OAUTH_PATHS: Readonly<{ Authorize: string; Token: string; Register: string; Revoke: string }> = Object.freeze({
  Authorize: "/oauth/authorize",
  Token: "/oauth/token",
  Register: "/oauth/register",
  Revoke: "/oauth/revoke",
});

/** The well-known documents (RFC 8414 §3, OpenID Connect Discovery §4) served with the metadata. */
export const METADATA_PATHS: readonly string[] = Object.freeze([
  "/.well-known/oauth-authorization-server",
  "/.well-known/openid-configuration",
]);

/** Returns the RFC 8414 §2 document of the server at `issuer` (an origin). */
export function authorizationServerMetadata(issuer: string, registration: boolean): Record<string, unknown> {
  const at = (path: string): string => new URL(path, issuer).href;
  return {
    issuer,
    authorization_endpoint: at(OAUTH_PATHS.Authorize),
    token_endpoint: at(OAUTH_PATHS.Token),
    ...(registration && { registration_endpoint: at(OAUTH_PATHS.Register) }),
    revocation_endpoint: at(OAUTH_PATHS.Revoke),
    scopes_supported: OAUTH_SCOPES,
    response_types_supported: ["code"],
    grant_types_supported: ["authorization_code", "refresh_token"],
    // OAuth 2.1 §4.1.1 / MCP authorization §Authorization Code Protection: PKCE with S256 only, never plain.
    code_challenge_methods_supported: [PKCE_METHOD],
    // Public clients only (OAuth 2.1 §2.1): no client secret is issued or accepted.
    token_endpoint_auth_methods_supported: ["none"],
    revocation_endpoint_auth_methods_supported: ["none"],
    client_id_metadata_document_supported: true,
    // RFC 9207 §3: every authorization response carries iss.
    authorization_response_iss_parameter_supported: true,
  };
}
