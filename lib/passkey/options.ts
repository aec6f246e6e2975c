/*
 * The JSON options the begin routes answer: the shape of
 * PublicKeyCredentialCreationOptionsJSON / RequestOptionsJSON (WebAuthn L3
 * §5.1.3.1, §5.1.4.1), binary fields base64url, ready for
 * `PublicKey­Credential.parseCreationOptionsFromJSON` or latch's client.
 */
import { Buffer } from "node:buffer";
import type { UserVerification } from "./config.ts";
import { CHALLENGE_TTL } from "./store.ts";
import type { PasskeyCredential } from "./store-rows.ts";

/** The attestation conveyance the component asks for: none (it records no attestation claim). */
export const DEFAULT_ATTESTATION_CONVEYANCE = "none";

/** The relying party's side of both ceremonies' options. */
export interface RelyingParty {
  rpID: string;
  rpName: string;
  /** COSE algorithms offered, in preference order. */
  algorithms: readonly number[];
  userVerification: UserVerification;
}

function descriptors(credentials: readonly PasskeyCredential[]): { type: "public-key"; id: string; transports: string[] }[] {
  return credentials.map((c) => ({ type: "public-key", id: c.id, transports: c.transports }));
}

/** Builds PublicKeyCredentialCreationOptionsJSON for `subject`, excluding its `existing` credentials. */
export function creationOptions(
  rp: RelyingParty,
  challenge: Uint8Array,
  userHandle: Uint8Array,
  subject: string,
  existing: readonly PasskeyCredential[],
): Record<string, unknown> {
  return {
    challenge: Buffer.from(challenge).toString("base64url"),
    rp: { id: rp.rpID, name: rp.rpName },
    user: { id: Buffer.from(userHandle).toString("base64url"), name: subject, displayName: subject },
    pubKeyCredParams: rp.algorithms.map((alg) => ({ type: "public-key", alg })),
    timeout: CHALLENGE_TTL,
    // §5.4.3: excludeCredentials stops a second registration on the same authenticator.
    excludeCredentials: descriptors(existing),
    authenticatorSelection: { residentKey: "preferred", requireResidentKey: false, userVerification: rp.userVerification },
    attestation: DEFAULT_ATTESTATION_CONVEYANCE,
  };
}

/** Builds PublicKeyCredentialRequestOptionsJSON for the subject's credentials. */
export function requestOptions(
  rp: RelyingParty,
  challenge: Uint8Array,
  credentials: readonly PasskeyCredential[],
): Record<string, unknown> {
  return {
    challenge: Buffer.from(challenge).toString("base64url"),
    rpId: rp.rpID,
    timeout: CHALLENGE_TTL,
    allowCredentials: descriptors(credentials),
    userVerification: rp.userVerification,
  };
}
