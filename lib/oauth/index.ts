/// <reference types="node" preserve="true" />
export { newOAuthServer } from "./server.ts";
export { Schema } from "./schema.ts";
export { OAuthError, isOAuthError } from "./errors.ts";
export type { Consent, ClientDirectory } from "./config.ts";
export type { OAuthClient } from "./client.ts";
export { accountRows } from "./account-rows.ts";
