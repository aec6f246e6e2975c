/*
 * The JSON options the begin routes answer: the shape of
 * PublicKeyCredentialCreationOptionsJSON / RequestOptionsJSON (WebAuthn L3
 * §5.1.3.1, §5.1.4.1), binary fields base64url, ready for
 * `PublicKey­Credential.parseCreationOptionsFromJSON` or latch's client.
 */
import { Buffer } from "node:buffer";
import type { UserVerification } from "./config.ts";
import type { PasskeyCredential } from "./store-rows.ts";

/** The attestation conveyance the component asks for: none (it records no attestation claim). */
export const DEFAULT_ATTESTATION_CONVEYANCE = "none";

function encodeBase64url(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64url");
}

/** What the creation options are built from. */
export interface CreationInput {
  challenge: Uint8Array;
  rpID: string;
  rpName: string;
  userHandle: Uint8Array;
  subject: string;
  algorithms: readonly number[];
  timeout: number;
  existing: readonly PasskeyCredential[];
  userVerification: UserVerification;
}

function descriptors(credentials: readonly PasskeyCredential[]): { type: "public-key"; id: string; transports: string[] }[] {
  return credentials.map((c) => ({ type: "public-key", id: c.id, transports: c.transports }));
}

/** Builds PublicKeyCredentialCreationOptionsJSON. */
export function creationOptions(input: CreationInput): Record<string, unknown> {
  return {
    challenge: encodeBase64url(input.challenge),
    rp: { id: input.rpID, name: input.rpName },
    user: { id: encodeBase64url(input.userHandle), name: input.subject, displayName: input.subject },
    pubKeyCredParams: input.algorithms.map((alg) => ({ type: "public-key", alg })),
    timeout: input.timeout,
    // §5.4.3: excludeCredentials stops a second registration on the same authenticator.
    excludeCredentials: descriptors(input.existing),
    authenticatorSelection: { residentKey: "preferred", requireResidentKey: false, userVerification: input.userVerification },
    attestation: DEFAULT_ATTESTATION_CONVEYANCE,
  };
}

/** Builds PublicKeyCredentialRequestOptionsJSON for the subject's credentials. */
export function requestOptions(
  challenge: Uint8Array,
  rpID: string,
  timeout: number,
  credentials: readonly PasskeyCredential[],
  userVerification: UserVerification,
): Record<string, unknown> {
  return {
    challenge: encodeBase64url(challenge),
    rpId: rpID,
    timeout,
    allowCredentials: descriptors(credentials),
    userVerification,
  };
}
