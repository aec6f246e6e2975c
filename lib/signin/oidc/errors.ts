/*
 * Errors of the inbox-provider (OpenID Connect) half of sign-in. They are
 * thrown for configuration mistakes and by the helpers that talk to the
 * provider; `InboxProvider.complete` turns every one of them into a
 * `{ ok: false, reason }` outcome, so a callback never throws at its caller
 * for a provider's misbehaviour.
 */
import { LatchError, type LatchErrorOptions } from "../../http/index.ts";
import { hasErrorCode } from "../../internal/index.ts";

/** The codes of this module, each equal to its key. */
export const OIDC_ERROR_CODES = {
  /** The `InboxProvider` options are unusable (empty `InstanceKey`, bad issuer or client URL). */
  ERR_SIGNIN_OIDC_INVALID_CONFIG: "ERR_SIGNIN_OIDC_INVALID_CONFIG",
  /** The provider could not be reached in time (network error, timeout). */
  ERR_SIGNIN_OIDC_UNREACHABLE: "ERR_SIGNIN_OIDC_UNREACHABLE",
  /** The provider answered, but not with what the protocol requires (status, type, size, JSON). */
  ERR_SIGNIN_OIDC_BAD_RESPONSE: "ERR_SIGNIN_OIDC_BAD_RESPONSE",
  /** The discovery document is unusable or names another issuer. */
  ERR_SIGNIN_OIDC_DISCOVERY: "ERR_SIGNIN_OIDC_DISCOVERY",
  /** The token endpoint refused the code or answered without an ID token. */
  ERR_SIGNIN_OIDC_TOKEN_EXCHANGE: "ERR_SIGNIN_OIDC_TOKEN_EXCHANGE",
  /** The provider's key set is unusable. */
  ERR_SIGNIN_OIDC_JWKS: "ERR_SIGNIN_OIDC_JWKS",
} as const;

/** An error code of the inbox-provider module. */
export type OIDCErrorCode = keyof typeof OIDC_ERROR_CODES;

/** An error from the inbox-provider module. Messages never carry codes, tokens or keys. */
export class OIDCError extends LatchError<OIDCErrorCode> {
  override name: string = "OIDCError";

  constructor(code: OIDCErrorCode, message: string, options: LatchErrorOptions = {}) {
    super(code, message, options);
  }
}

/** Reports whether `e` is an `OIDCError` (by its code, so copies from another latch match). */
export function isOIDCError(e: unknown): e is OIDCError {
  return hasErrorCode(e, OIDC_ERROR_CODES);
}
