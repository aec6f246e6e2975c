/*
 * Authenticator data (WebAuthn L3 §6.1) and attested credential data
 * (§6.5.1). Leftover bytes are refused: a parser that ignores them would
 * accept data no authenticator made.
 */
import { decodeCBORItem } from "./cbor.ts";
import { ceremonyError } from "./errors.ts";

/** Largest credential id accepted (WebAuthn L3 §6.5.1: L MUST be ≤ 1023). */
export const MAX_CREDENTIAL_ID_BYTES = 1023;

/** The flags byte of authenticator data, decoded (WebAuthn L3 §6.1). */
export interface AuthenticatorFlags {
  /** User Present (bit 0). */
  userPresent: boolean;
  /** User Verified (bit 2). */
  userVerified: boolean;
  /** Backup Eligibility (bit 3). */
  backupEligible: boolean;
  /** Backup State (bit 4). */
  backupState: boolean;
  /** Attested credential data included (bit 6). */
  attestedCredentialData: boolean;
  /** Extension data included (bit 7). */
  extensionData: boolean;
}

/** Attested credential data (WebAuthn L3 §6.5.1). */
export interface AttestedCredentialData {
  /** The authenticator's AAGUID, 16 bytes. */
  aaguid: Uint8Array;
  /** The credential id. */
  credentialId: Uint8Array;
  /** The COSE_Key exactly as encoded in the authenticator data. */
  publicKey: Uint8Array;
}

/** Parsed authenticator data. */
export interface AuthenticatorData {
  /** SHA-256 of the RP ID the authenticator scoped the credential to. */
  rpIdHash: Uint8Array;
  /** Decoded flags. */
  flags: AuthenticatorFlags;
  /** Signature counter. */
  signCount: number;
  /** Present when the AT flag is set. */
  attestedCredentialData: AttestedCredentialData | undefined;
  /** Raw CBOR of the extensions map, present when the ED flag is set. */
  extensions: Uint8Array | undefined;
}

const CONTEXT = { code: "ERR_PASSKEY_MALFORMED_AUTHENTICATOR_DATA", step: "6.1: authenticator data" } as const;

function malformed(reason: string): Error {
  return ceremonyError(CONTEXT.code, CONTEXT.step, reason);
}

/**
 * Parses authenticator data. Throws PasskeyError
 * ERR_PASSKEY_MALFORMED_AUTHENTICATOR_DATA when it is truncated, has leftover
 * bytes, or its embedded CBOR is malformed.
 */
export function parseAuthenticatorData(bytes: Uint8Array): AuthenticatorData {
  if (bytes.length < 37) throw malformed("shorter than 37 bytes");
  const flagByte = bytes[32] ?? 0;
  const flags: AuthenticatorFlags = {
    userPresent: (flagByte & 0x01) !== 0,
    userVerified: (flagByte & 0x04) !== 0,
    backupEligible: (flagByte & 0x08) !== 0,
    backupState: (flagByte & 0x10) !== 0,
    attestedCredentialData: (flagByte & 0x40) !== 0,
    extensionData: (flagByte & 0x80) !== 0,
  };
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const signCount = view.getUint32(33, false);
  let pos = 37;
  let attested: AttestedCredentialData | undefined;
  if (flags.attestedCredentialData) {
    if (bytes.length < pos + 18) throw malformed("attested credential data truncated");
    const aaguid = bytes.slice(pos, pos + 16);
    const idLength = view.getUint16(pos + 16, false);
    pos += 18;
    // WebAuthn L3 §6.5.1: credentialIdLength MUST be ≤ 1023.
    if (idLength > MAX_CREDENTIAL_ID_BYTES) throw malformed("credential id longer than 1023 bytes");
    if (bytes.length < pos + idLength) throw malformed("credential id truncated");
    const credentialId = bytes.slice(pos, pos + idLength);
    pos += idLength;
    const [, keyEnd] = decodeCBORItem(bytes, pos, CONTEXT);
    attested = { aaguid, credentialId, publicKey: bytes.slice(pos, keyEnd) };
    pos = keyEnd;
  }
  let extensions: Uint8Array | undefined;
  if (flags.extensionData) {
    const [value, end] = decodeCBORItem(bytes, pos, CONTEXT);
    if (!(value instanceof Map)) throw malformed("extensions are not a CBOR map");
    extensions = bytes.slice(pos, end);
    pos = end;
  }
  // WebAuthn L3 §6.1: the structure ends after the fields its flags announce.
  if (pos !== bytes.length) throw malformed(`${bytes.length - pos} leftover bytes`);
  return { rpIdHash: bytes.slice(0, 32), flags, signCount, attestedCredentialData: attested, extensions };
}
