/*
 * An OAuth client as the authorization server knows it, whichever way it
 * became known: a Client ID Metadata Document fetched from its https
 * `client_id` (the MCP 2025-11-25 preferred way), or an RFC 7591 dynamic
 * registration.
 */

/** A client the authorization server can send a person's grant to. */
export interface OAuthClient {
  /** The `client_id`: an https URL (metadata document) or a registered id. */
  readonly ClientID: string;
  /** `client_name` as the client declared it, for the consent page; never trusted as latch's words. */
  readonly Name: string;
  /** Where the client lives, shown beside its name: the host of its redirect URIs, or "localhost". */
  readonly Host: string;
  /** Redirect URIs, matched exactly (RFC 8252 §7.3: a loopback one with any port). */
  readonly RedirectURIs: readonly string[];
  /**
   * The grant types it registered (RFC 7591 §2 `grant_types`): always
   * "authorization_code"; "refresh_token" when it may refresh, else the
   * token endpoint hands it no refresh token.
   */
  readonly GrantTypes: readonly string[];
}
