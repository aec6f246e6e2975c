/// <reference types="node" preserve="true" />
export { create, Passkey, METHOD_PASSKEY } from "./passkey.ts";
export { PASSKEY_PENDING_COOKIE, DEFAULT_FRESH_FOR } from "./config.ts";
export { DEFAULT_ATTESTATION_CONVEYANCE } from "./options.ts";
export { Schema } from "./schema.ts";
export { PasskeyStore, Sweep, CHALLENGE_TTL, PENDING_TTL, RECOVERY_CODE_COUNT, MAX_CREDENTIAL_NAME } from "./store.ts";
export { RECOVERY_ALPHABET, RECOVERY_CODE_LENGTH, normalizeRecoveryCode } from "./secrets.ts";
export type { Config, UserVerification } from "./config.ts";
export type { ChallengeCeremony, PendingSignIn, PasskeyStoreOptions, SaveCredentialOptions } from "./store.ts";
export type { PasskeyCredential } from "./store-rows.ts";
