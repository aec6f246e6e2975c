/// <reference types="node" preserve="true" />
export { create, Passkey } from "./passkey.ts";
export { Schema } from "./schema.ts";
export { Sweep } from "./store.ts";
export { isPasskeyConfirmed } from "./method.ts";
export type { Config, UserVerification } from "./config.ts";
export type { PasskeyCredential } from "./store-rows.ts";
export { accountRows } from "./account-rows.ts";
