/*
 * OAuth errors in RFC 6749's shapes: JSON with the status §5.2 (RFC 7591 §3.2.2) names from a client's endpoint; from
 * the authorization endpoint, redirected to the client (§4.1.2.1) once its redirect URI is known good, else shown.
 */

/** An OAuth error code: RFC 6749 §4.1.2.1 and §5.2, RFC 7591 §3.2.2, RFC 6750 §3.1, RFC 8707 §2. */
export type OAuthErrorCode =
  | "invalid_request"
  | "invalid_client"
  | "invalid_grant"
  | "unauthorized_client"
  | "unsupported_grant_type"
  | "unsupported_response_type"
  | "invalid_scope"
  | "access_denied"
  | "server_error"
  | "temporarily_unavailable"
  | "invalid_redirect_uri"
  | "invalid_client_metadata"
  | "invalid_target"
  | "invalid_token";

/** An error an OAuth endpoint answers with; `description` is safe to show the client (never a secret). */
export class OAuthError extends Error {
  override name: string = "OAuthError";
  readonly code: OAuthErrorCode;
  /** The HTTP status of the JSON answer (400 unless §5.2 says otherwise: 401 for invalid_client). */
  readonly status: number;

  constructor(code: OAuthErrorCode, description: string, status: number = code === "invalid_client" ? 401 : 400) {
    super(description);
    this.code = code;
    this.status = status;
  }

  /** The RFC 6749 §5.2 body. */
  toJSON(): { error: OAuthErrorCode; error_description: string } {
    return { error: this.code, error_description: this.message };
  }
}

/** An `OAuthError` "temporarily_unavailable" (429 or 503) whose answer carries `Retry-After`: seconds until room is expected. */
export class OAuthRetryLater extends OAuthError {
  readonly retryAfter: number;
  constructor(description: string, status: 429 | 503, retryAfter: number) {
    super("temporarily_unavailable", description, status);
    this.retryAfter = retryAfter;
  }
}

/** Reports whether `err` is an `OAuthError`. */
export function isOAuthError(err: unknown): err is OAuthError {
  return err instanceof OAuthError;
}
