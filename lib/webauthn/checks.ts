/*
 * Authenticator-data checks shared by both ceremonies: rpIdHash, UP, UV and
 * the BE/BS consistency rule (§7.1 steps 14-17, §7.2 steps 15-18).
 */
import { createHash, timingSafeEqual } from "node:crypto";
import type { AuthenticatorData } from "./authenticator-data.ts";
import type { Ceremony } from "./client-data.ts";
import { ceremonyError } from "./errors.ts";

/** Expectations on authenticator data. */
export interface AuthenticatorDataExpectations {
  /** Accepted RP IDs. */
  rpID: string | readonly string[];
  /** Whether the UV flag must be set. */
  requireUserVerification: boolean;
}

const STEPS = {
  registration: { section: "7.1", rpIdHash: 14, up: 15, uv: 16, backup: 17 },
  authentication: { section: "7.2", rpIdHash: 15, up: 16, uv: 17, backup: 18 },
} as const;

/** SHA-256 of `data`. */
export function sha256(data: Uint8Array): Uint8Array {
  return new Uint8Array(createHash("sha256").update(data).digest());
}

/** Runs the rpIdHash and flag steps. Throws PasskeyError naming the failed step. */
export function verifyAuthenticatorData(authData: AuthenticatorData, expect: AuthenticatorDataExpectations, ceremony: Ceremony): void {
  const s = STEPS[ceremony];
  const step = (n: number, what: string): string => `${s.section} step ${n}: ${what}`;
  const ids = typeof expect.rpID === "string" ? [expect.rpID] : expect.rpID;
  // WebAuthn L3 §7.1 step 14 / §7.2 step 15: rpIdHash is SHA-256 of an expected RP ID.
  const matches = ids.some((id) => timingSafeEqual(sha256(new TextEncoder().encode(id)), authData.rpIdHash));
  if (!matches)
    throw ceremonyError("ERR_PASSKEY_RP_ID_HASH", step(s.rpIdHash, "rpIdHash"), "rpIdHash is not the hash of an expected RP ID");
  // WebAuthn L3 §7.1 step 15 / §7.2 step 16: the UP flag is set (latch never uses conditional create).
  if (!authData.flags.userPresent) {
    throw ceremonyError("ERR_PASSKEY_USER_PRESENCE", step(s.up, "UP"), "user presence flag is not set");
  }
  // WebAuthn L3 §7.1 step 16 / §7.2 step 17: UV set when the RP requires user verification.
  if (expect.requireUserVerification && !authData.flags.userVerified) {
    throw ceremonyError("ERR_PASSKEY_USER_VERIFICATION", step(s.uv, "UV"), "user verification flag is not set");
  }
  // WebAuthn L3 §7.1 step 17 / §7.2 step 18: BS is never set without BE.
  if (authData.flags.backupState && !authData.flags.backupEligible) {
    throw ceremonyError("ERR_PASSKEY_BACKUP_FLAGS", step(s.backup, "BE/BS"), "backup state set without backup eligibility");
  }
}
