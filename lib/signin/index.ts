/// <reference types="node" preserve="true" />
export { create, Signin } from "./signin.ts";
export { From, SessionFrom } from "./request.ts";
export { ErrEmptyInstanceKey, isSigninError } from "./errors.ts";
export { Schema } from "./schema.ts";
export { LINK_TTL } from "./links.ts";
export { normalizeAddress } from "./address.ts";
export { CODE_LENGTH } from "./link-code.ts";
export { DEFAULT_RATE_LIMITS } from "./rate.ts";
export { securityNotices, SecurityNotices, NOTICE_KINDS, MAX_KNOWN_DEVICES } from "./notices.ts";
export { NewToken, HashToken, DefaultSessionTTL } from "../session/index.ts";
export type { Config, ProviderConfig } from "./config.ts";
export type { IssuedLink } from "./signin.ts";
export type { RateLimits } from "./rate.ts";
export type { NoticesConfig, NoticeKind, AuditedEvent } from "./notices.ts";
export type { Identity } from "../session/index.ts";
export { accountRows } from "./account-rows.ts";
// Named by the signatures above (issue 42: a public signature names only public types).
// SigninError as a type only: the narrowing of isSigninError, not a class to test with instanceof.
export type { SigninError } from "./errors.ts";
export type { RateWindow } from "./rate.ts";
export type { SweepResult } from "./signin.ts";
export type { SigninRows } from "./account-rows.ts";
export { SIGNIN_ERROR_CODES } from "./errors.ts";
export type { SigninErrorCode } from "./errors.ts";
export type { SigninAccount } from "./account-rows.ts";
