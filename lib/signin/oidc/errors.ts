/*
 * Errors of the inbox-provider half of sign-in (README has when each is thrown); `InboxProvider.complete`
 * turns every one into a `{ ok: false, reason }` outcome, so a callback never throws for a provider.
 */
import { LatchError } from "../../http/index.ts";
import { hasErrorCode } from "../../internal/index.ts";

/** The codes of this module, each equal to its key. */
export const OIDC_ERROR_CODES = {
  ERR_SIGNIN_OIDC_INVALID_CONFIG: "ERR_SIGNIN_OIDC_INVALID_CONFIG",
  ERR_SIGNIN_OIDC_UNREACHABLE: "ERR_SIGNIN_OIDC_UNREACHABLE",
  ERR_SIGNIN_OIDC_BAD_RESPONSE: "ERR_SIGNIN_OIDC_BAD_RESPONSE",
  ERR_SIGNIN_OIDC_DISCOVERY: "ERR_SIGNIN_OIDC_DISCOVERY",
  ERR_SIGNIN_OIDC_TOKEN_EXCHANGE: "ERR_SIGNIN_OIDC_TOKEN_EXCHANGE",
  ERR_SIGNIN_OIDC_JWKS: "ERR_SIGNIN_OIDC_JWKS",
} as const;

/** An error code of the inbox-provider module. */
export type OIDCErrorCode = keyof typeof OIDC_ERROR_CODES;

/** An error from the inbox-provider module. Messages never carry codes, tokens or keys. */
export class OIDCError extends LatchError<OIDCErrorCode> {
  override name: string = "OIDCError";
}

/** Reports whether `e` is an `OIDCError` (by its code, so copies from another latch match). */
export function isOIDCError(e: unknown): e is OIDCError {
  return hasErrorCode(e, OIDC_ERROR_CODES);
}
