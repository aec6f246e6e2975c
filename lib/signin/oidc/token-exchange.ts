/*
 * The token request of the code grant (RFC 6749 §4.1.3) as a public client: `client_id` and the PKCE
 * verifier (RFC 7636 §4.5) in the body. Only the ID token is kept; the access token is never used.
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
 * Exchanges an authorization code for the ID token. Throws `OIDCError` (`fetchJSON`'s, or
 * `ERR_SIGNIN_OIDC_TOKEN_EXCHANGE` naming an error answer's `error` code, never its description).
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
