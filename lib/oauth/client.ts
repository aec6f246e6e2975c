/* An OAuth client as the authorization server knows it, from a metadata document or a registration (README, Clients). */

/** A client the authorization server can send a person's grant to. */
export interface OAuthClient {
  /** The `client_id`: an https URL (metadata document) or a registered id. */
  readonly ClientID: string;
  /** `client_name` as the client declared it, for the consent page; never trusted as latch's words. */
  readonly Name: string;
  /** Redirect URIs, matched exactly (RFC 8252 §7.3: a loopback one with any port). */
  readonly RedirectURIs: readonly string[];
  /** Where the client lives, shown beside its name: the host of its redirect URIs, or "localhost". */
  readonly Host: string;
  /** Its RFC 7591 §2 `grant_types`: "authorization_code", and "refresh_token" when it may refresh (else it gets no refresh token). */
  readonly GrantTypes: readonly string[];
}
