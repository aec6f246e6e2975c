/// <reference types="node" preserve="true" />
export { newOAuthServer } from "./server.ts";
export { Schema } from "./schema.ts";
export { OAuthError, isOAuthError } from "./errors.ts";
export type { Consent, ClientDirectory } from "./config.ts";
export type { OAuthClient } from "./client.ts";
export { accountRows } from "./account-rows.ts";
// Named by the signatures above (issue 42: a public signature names only public types).
export type { OAuthServer, OAuthServerConfig } from "./config.ts";
export type { OAuthErrorCode } from "./errors.ts";
