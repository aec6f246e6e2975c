/*
 * Runs every entry of test/fixtures/passkey/*.json through latch's
 * verifiers and checks its expected outcome. Entries whose expected outcome
 * depends on something latch deliberately does not do are listed in
 * DEVIATIONS with the reason and the outcome latch gives instead, which is
 * asserted too, so every vector runs.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { SUPPORTED_ALGORITHMS } from "../../lib/webauthn/algorithms.ts";
import { VERIFIED_ATTESTATION_FORMATS } from "../../lib/webauthn/attestation.ts";
import {
  isPasskeyError,
  parseAuthenticationResponse,
  parseRegistrationResponse,
  verifyAuthentication,
  verifyRegistration,
} from "../../lib/webauthn/index.ts";
import type { RegisteredCredential, AuthenticationResult } from "../../lib/webauthn/index.ts";
import { authenticationJSON, factFlags, loadVectorFile, registrationJSON, strings, text } from "../_support/passkey-vectors.ts";
import type { Vector, VectorFile } from "../_support/passkey-vectors.ts";

/** failsCheck (fixture README) → latch error code. */
const CODES: Readonly<Record<string, string>> = {
  type: "ERR_PASSKEY_TYPE",
  challenge: "ERR_PASSKEY_CHALLENGE",
  origin: "ERR_PASSKEY_ORIGIN",
  crossOrigin: "ERR_PASSKEY_CROSS_ORIGIN",
  topOrigin: "ERR_PASSKEY_TOP_ORIGIN",
  rpIdHash: "ERR_PASSKEY_RP_ID_HASH",
  userPresent: "ERR_PASSKEY_USER_PRESENCE",
  userVerified: "ERR_PASSKEY_USER_VERIFICATION",
  backupFlags: "ERR_PASSKEY_BACKUP_FLAGS",
  alg: "ERR_PASSKEY_ALGORITHM",
  attestationStatement: "ERR_PASSKEY_ATTESTATION",
  attestationTrust: "ERR_PASSKEY_ATTESTATION_TRUST",
  signature: "ERR_PASSKEY_SIGNATURE",
  signCount: "ERR_PASSKEY_SIGN_COUNT",
  authenticatorData: "ERR_PASSKEY_MALFORMED_AUTHENTICATOR_DATA",
};

/** What latch does instead: "ok" = verifies, or the error code latch throws. */
interface Deviation {
  reason: string;
  latch: "ok" | string;
  /** Also rerun with the response id set to the attested credential id, expecting the source outcome. */
  rerunWithAttestedID?: boolean;
}

const SWA = "simplewebauthn/";
const TYPE_REASON =
  "source passed a custom expectedType; latch fixes the type to webauthn.create / webauthn.get (§7.1 step 7, §7.2 step 10), so the untouched response verifies";
const TYPE_RP_REASON =
  'source passed a custom expectedType; latch fixes the type to webauthn.get (§7.2 step 10), so the type passes and the next failing check is rpIdHash (the source test expected RP ID "localhost")';
const RS1_REASON = "credential key is RS1 (COSE -65535, RSASSA-PKCS1-v1_5 with SHA-1); latch does not accept SHA-1 signatures";
const ID_REASON =
  "source fixture's response id is a placeholder that is not the credential id in authData; latch requires them equal (§7.1 step 27). The rerun with the real id verifies";
const SHORT_CHALLENGE =
  "expected challenge is a short literal for a custom verifier; latch refuses challenges under 16 bytes (§13.4.3) before comparing";
const UNVERIFIED =
  'format is not verified by latch (only none, packed, fido-u2f); it is accepted as attestationType "unverified", so the statement\'s defect is not detected';

/** Vectors whose expected outcome latch deliberately does not reproduce (also listed in lib/webauthn/README.md). */
export const DEVIATIONS: ReadonlyMap<string, Deviation> = new Map<string, Deviation>([
  [
    `${SWA}verifyRegistrationResponse/verify-packed-ec2-attestation`,
    { reason: ID_REASON, latch: "ERR_PASSKEY_CREDENTIAL_ID", rerunWithAttestedID: true },
  ],
  [
    `${SWA}verifyRegistrationResponse/verify-packed-x5c-attestation`,
    { reason: ID_REASON, latch: "ERR_PASSKEY_CREDENTIAL_ID", rerunWithAttestedID: true },
  ],
  [`${SWA}verifyRegistrationResponse/throw-when-response-type-is-not-expected-value`, { reason: TYPE_REASON, latch: "ok" }],
  [`${SWA}verifyRegistrationResponse/throw-when-response-type-is-not-in-list-of-expected-types`, { reason: TYPE_REASON, latch: "ok" }],
  [
    `${SWA}verifyAuthenticationResponse/throw-an-error-if-type-not-the-expected-type`,
    { reason: TYPE_RP_REASON, latch: "ERR_PASSKEY_RP_ID_HASH" },
  ],
  [
    `${SWA}verifyAuthenticationResponse/throw-an-error-if-type-not-in-list-of-expected-types`,
    { reason: TYPE_RP_REASON, latch: "ERR_PASSKEY_RP_ID_HASH" },
  ],
  [`${SWA}verifyRegistrationResponse/validate-tpm-rsa-response-sha1`, { reason: RS1_REASON, latch: "ERR_PASSKEY_ALGORITHM" }],
  [`${SWA}verifyAttestationTPM/verify-sha1-tpm-response`, { reason: RS1_REASON, latch: "ERR_PASSKEY_ALGORITHM" }],
  [
    `${SWA}verifyRegistrationResponse/fail-verification-if-custom-challenge-verifier-returns-false`,
    { reason: SHORT_CHALLENGE, latch: "ERR_PASSKEY_INVALID_OPTIONS" },
  ],
  [
    `${SWA}verifyAuthenticationResponse/fail-verification-if-custom-challenge-verifier-returns-false`,
    { reason: SHORT_CHALLENGE, latch: "ERR_PASSKEY_INVALID_OPTIONS" },
  ],
  [`${SWA}verifyRegistrationResponse/enforce-cts-check-by-default`, { reason: `android-safetynet ${UNVERIFIED}`, latch: "ok" }],
  [
    `${SWA}verifyAttestationTPM/fail-if-id-fido-gen-ce-aaguid-extension-is-present-and-does-not-match-aaguid-in-auth-data`,
    { reason: `tpm ${UNVERIFIED}`, latch: "ok" },
  ],
]);

function expectedFailure(v: Vector): string | undefined {
  const deviation = DEVIATIONS.get(v.name);
  if (deviation !== undefined) return deviation.latch === "ok" ? undefined : deviation.latch;
  if (v.outcome.ok) return undefined;
  const code = CODES[v.outcome.failsCheck ?? ""];
  assert.ok(code !== undefined, `no code for failsCheck ${v.outcome.failsCheck}`);
  return code;
}

function numbers(value: unknown): number[] | undefined {
  if (!Array.isArray(value)) return undefined;
  return value.filter((n): n is number => typeof n === "number");
}

function runRegistration(v: Vector, file: VectorFile, useAttestedID = false): RegisteredCredential {
  const o = v.options;
  const anchors = o["trustAnchors"] === undefined ? [] : strings(o["trustAnchors"]);
  const verifyAt = o["verifyAt"];
  const response = parseRegistrationResponse(registrationJSON(v));
  const attestedID = response.attestation.authData.attestedCredentialData?.credentialId;
  if (useAttestedID && attestedID !== undefined) response.id = Buffer.from(attestedID).toString("base64url");
  return verifyRegistration(response, {
    challenge: new Uint8Array(Buffer.from(v.expected.challenge, "base64url")),
    origin: v.expected.origin,
    rpID: v.expected.rpId,
    requireUserVerification: o["requireUserVerification"] === true,
    allowCrossOrigin: o["allowCrossOrigin"] === true,
    allowedTopOrigins: o["allowedTopOrigins"] === undefined ? [] : strings(o["allowedTopOrigins"]),
    algorithms: numbers(o["supportedAlgorithmIDs"]) ?? SUPPORTED_ALGORITHMS,
    trustAnchors: anchors.map((name) => file.anchors.get(name) ?? new Uint8Array()),
    now: typeof verifyAt === "string" ? new Date(verifyAt) : new Date("2025-06-01T00:00:00Z"),
  });
}

function runAuthentication(v: Vector): AuthenticationResult {
  const o = v.options;
  const handle = v.input["userHandle"];
  const response = parseAuthenticationResponse(authenticationJSON(v));
  const stored = v.input["storedSignCount"];
  return verifyAuthentication(response, {
    challenge: new Uint8Array(Buffer.from(v.expected.challenge, "base64url")),
    origin: v.expected.origin,
    rpID: v.expected.rpId,
    requireUserVerification: o["requireUserVerification"] === true,
    allowCrossOrigin: o["allowCrossOrigin"] === true,
    allowedTopOrigins: o["allowedTopOrigins"] === undefined ? [] : strings(o["allowedTopOrigins"]),
    credential: {
      id: response.id,
      subject: "alice@example.org",
      publicKey: new Uint8Array(Buffer.from(text(v.input, "credentialPublicKey"), "base64url")),
      signCount: typeof stored === "number" ? stored : 0,
      backupEligible: (factFlags(v) & 0x08) !== 0,
      userHandle: typeof handle === "string" ? response.userHandle : undefined,
    },
    expectedSubject: "alice@example.org",
  });
}

for (const fileName of ["w3c-webauthn-l3.json", "simplewebauthn.json"]) {
  const file = loadVectorFile(fileName);
  describe(`verifyRegistration() / verifyAuthentication() on ${fileName}`, () => {
    for (const v of file.vectors) {
      const want = expectedFailure(v);
      const deviation = DEVIATIONS.get(v.name);
      it(`${v.name} ${want === undefined ? "verifies" : `fails with ${want}`}`, () => {
        const run = (): unknown => (v.ceremony === "registration" ? runRegistration(v, file) : runAuthentication(v));
        if (deviation?.rerunWithAttestedID === true) assert.equal(runRegistration(v, file, true).id.length > 0, true);
        if (want === undefined) {
          const result = run();
          const fmt = v.facts["fmt"];
          if (v.ceremony === "registration" && typeof fmt === "string") {
            assert.ok(typeof result === "object" && result !== null && "attestationType" in result);
            // Formats latch does not verify are accepted only as unattested.
            assert.equal(result.attestationType === "unverified", !VERIFIED_ATTESTATION_FORMATS.includes(fmt));
          }
          return;
        }
        assert.throws(run, (e: unknown) => {
          assert.ok(isPasskeyError(e), `not a PasskeyError: ${String(e)}`);
          assert.equal(e.code, want, `${e.step}: ${e.message}`);
          return true;
        });
      });
    }
  });
}
