/*
 * The authorization code grant's token request (RFC 6749 §4.1.3) as a
 * public client: no client secret, `client_id` in the body, and the PKCE
 * code verifier (RFC 7636 §4.5) proving we sent the authorization request.
 * Only the ID token is kept; the access token is never used or stored.
 */
import { ownField } from "../../internal/index.ts";
import { OIDCError } from "./errors.ts";
import { fetchJSON } from "./fetch-json.ts";

/** One code exchange. */
export interface CodeExchange {
  tokenEndpoint: URL;
  code: string;
  redirectURI: string;
  clientID: string;
  codeVerifier: string;
  signal: AbortSignal;
}

/**
 * Exchanges an authorization code and returns the ID token. Throws
 * `OIDCError`: `ERR_SIGNIN_OIDC_UNREACHABLE` when the endpoint cannot be
 * reached in time, `ERR_SIGNIN_OIDC_BAD_RESPONSE` for a body that is not
 * JSON, `ERR_SIGNIN_OIDC_TOKEN_EXCHANGE` for an error answer (its OAuth
 * `error` code, never its description, is in the message) or a missing
 * ID token.
 */
export async function exchangeCode(exchange: CodeExchange): Promise<string> {
  const form = new URLSearchParams({
    grant_type: "authorization_code",
    code: exchange.code,
    redirect_uri: exchange.redirectURI,
    client_id: exchange.clientID,
    code_verifier: exchange.codeVerifier,
  });
  // The token endpoint must not redirect (a redirect would resend the code elsewhere).
  const res = await fetchJSON(exchange.tokenEndpoint, { signal: exchange.signal, form });
  const body = res.body;
  if (res.status !== 200) {
    const error = typeof body === "object" && body !== null ? ownField(body, "error") : undefined;
    const code = typeof error === "string" && /^[\x20-\x7e]{1,64}$/.test(error) ? error : "unknown";
    throw new OIDCError("ERR_SIGNIN_OIDC_TOKEN_EXCHANGE", `exchange code: status ${res.status}, error ${code}`);
  }
  const idToken = typeof body === "object" && body !== null ? ownField(body, "id_token") : undefined;
  if (typeof idToken !== "string" || idToken === "") {
    throw new OIDCError("ERR_SIGNIN_OIDC_TOKEN_EXCHANGE", "exchange code: response has no id_token");
  }
  return idToken;
}
