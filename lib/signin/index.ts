/// <reference types="node" preserve="true" />
export { create, Signin, METHOD_MAGICLINK, METHOD_KEYMAIL, METHOD_EMAIL_CODE } from "./signin.ts";
export { From, SessionFrom } from "./request.ts";
export { ErrEmptyInstanceKey, SigninError, SIGNIN_ERROR_CODES, isSigninError } from "./errors.ts";
export { Schema } from "./schema.ts";
export { LINK_TTL } from "./links.ts";
export { CODE_LENGTH, MAX_CODE_ATTEMPTS } from "./link-code.ts";
export { BINDING_COOKIE } from "./binding.ts";
export { DEFAULT_RATE_LIMITS, CODE_MISS_LIMIT, clientBucket, addressBucket } from "./rate.ts";
export { normalizeAddress, MAX_ADDRESS_LENGTH } from "./address.ts";
export { NewToken, HashToken, DefaultSessionTTL } from "../session/index.ts";
export {
  InboxProvider,
  DEFAULT_LOOKUP_TIMEOUT,
  DEFAULT_HTTP_TIMEOUT,
  PENDING_BLOB_TTL,
  OIDC_PENDING_COOKIE,
  ID_TOKEN_CLOCK_SKEW,
  DISCOVERY_TTL,
  ISSUER_REL,
  OIDC_ERROR_CODES,
  OIDCError,
  isOIDCError,
} from "./oidc/index.ts";
export type { Config, ProviderConfig } from "./config.ts";
export type { SweepResult } from "./signin.ts";
export type { RateLimits, RateWindow, RateLimitName } from "./rate.ts";
export type { SigninErrorCode } from "./errors.ts";
export type { Identity } from "../session/index.ts";
export type { InboxProviderOptions, LookupFunc, BeginResult, CompleteResult, CompleteFailure, OIDCErrorCode } from "./oidc/index.ts";
