/*
 * Narrows the browser's `PublicKeyCredential.toJSON()` (WebAuthn L3 §5.1)
 * from `unknown` into decoded bytes and parsed structures, each field size
 * limited before decoding; whether it is acceptable, the verifiers decide.
 */
import { Buffer } from "node:buffer";
import { ownField } from "../internal/index.ts";
import { parseAttestationObject } from "./attestation-object.ts";
import type { AttestationObject } from "./attestation-object.ts";
import { parseAuthenticatorData, MAX_CREDENTIAL_ID_BYTES } from "./authenticator-data.ts";
import type { AuthenticatorData } from "./authenticator-data.ts";
import { decodeBase64url, encodeBase64url } from "./base64url.ts";
import { parseClientData } from "./client-data.ts";
import type { ClientData } from "./client-data.ts";
import { ceremonyError } from "./errors.ts";

/** Largest decoded size of any binary field of a response (clientDataJSON, attestationObject...). */
export const MAX_RESPONSE_FIELD_BYTES = 65536;

const TRANSPORT = /^[a-z0-9-]{1,32}$/;
const MAX_TRANSPORTS = 16;

/** A parsed registration response. */
export interface RegistrationResponse {
  /** Credential id, canonical base64url. */
  id: string;
  /** Raw clientDataJSON bytes (hashed for the attestation signature). */
  clientDataJSON: Uint8Array;
  /** Parsed client data. */
  clientData: ClientData;
  /** Decoded attestation object. */
  attestation: AttestationObject;
  /** Transports the client reported, e.g. ["internal", "hybrid"]. */
  transports: string[];
}

/** A parsed authentication (assertion) response. */
export interface AuthenticationResponse {
  /** Credential id, canonical base64url: look the stored credential up by it. */
  id: string;
  /** Raw clientDataJSON bytes. */
  clientDataJSON: Uint8Array;
  /** Parsed client data. */
  clientData: ClientData;
  /** Raw authenticator data (signed). */
  authenticatorDataBytes: Uint8Array;
  /** Parsed authenticator data. */
  authenticatorData: AuthenticatorData;
  /** The assertion signature. */
  signature: Uint8Array;
  /** The user handle, when the authenticator returned one. */
  userHandle: Uint8Array | undefined;
}

function malformed(step: string, reason: string): Error {
  return ceremonyError("ERR_PASSKEY_MALFORMED_CREDENTIAL", step, reason);
}

function binary(obj: object, name: string, step: string, maxBytes: number): Uint8Array {
  const text = ownField(obj, name);
  const bytes = typeof text === "string" ? decodeBase64url(text, maxBytes) : undefined;
  if (bytes === undefined) throw malformed(step, `${name} is not base64url within ${maxBytes} bytes`);
  return bytes;
}

function envelope(input: unknown, step: string): [id: string, response: object] {
  if (typeof input !== "object" || input === null) throw malformed(step, "credential is not an object");
  // WebAuthn L3 §5.1: a PublicKeyCredential has type "public-key".
  if (ownField(input, "type") !== "public-key") throw malformed(step, "credential type is not public-key");
  const rawId = binary(input, "rawId", step, MAX_CREDENTIAL_ID_BYTES);
  const id = binary(input, "id", step, MAX_CREDENTIAL_ID_BYTES);
  // WebAuthn L3 §5.1: id is the base64url encoding of rawId.
  if (Buffer.compare(id, rawId) !== 0 || id.length === 0) throw malformed(step, "id and rawId differ");
  const response = ownField(input, "response");
  if (typeof response !== "object" || response === null) throw malformed(step, "response is not an object");
  return [encodeBase64url(rawId), response];
}

/**
 * Parses the JSON form of a registration credential (WebAuthn L3 §7.1 steps
 * 3-6 and 13). Throws PasskeyError with an ERR_PASSKEY_MALFORMED_* code.
 */
export function parseRegistrationResponse(input: unknown): RegistrationResponse {
  const step = "7.1 step 3: response";
  const [id, response] = envelope(input, step);
  const clientDataJSON = binary(response, "clientDataJSON", step, MAX_RESPONSE_FIELD_BYTES);
  const attestationObject = binary(response, "attestationObject", step, MAX_RESPONSE_FIELD_BYTES);
  const list = ownField(response, "transports");
  const given = list === undefined ? [] : list;
  if (!Array.isArray(given) || given.length > MAX_TRANSPORTS) throw malformed(step, "transports is not a short list");
  if (!given.every((t) => typeof t === "string" && TRANSPORT.test(t))) throw malformed(step, "transports holds a malformed value");
  const transports: string[] = [...new Set(given)];
  const clientData = parseClientData(clientDataJSON, "registration");
  const attestation = parseAttestationObject(attestationObject);
  return { id, clientDataJSON, clientData, attestation, transports };
}

/**
 * Parses the JSON form of an authentication credential (WebAuthn L3 §7.2
 * steps 3 and 7-9). Throws PasskeyError with an ERR_PASSKEY_MALFORMED_* code.
 */
export function parseAuthenticationResponse(input: unknown): AuthenticationResponse {
  const step = "7.2 step 3: response";
  const [id, response] = envelope(input, step);
  const clientDataJSON = binary(response, "clientDataJSON", step, MAX_RESPONSE_FIELD_BYTES);
  const authenticatorDataBytes = binary(response, "authenticatorData", step, MAX_RESPONSE_FIELD_BYTES);
  const signature = binary(response, "signature", step, MAX_RESPONSE_FIELD_BYTES);
  const handle = ownField(response, "userHandle") ?? undefined;
  // WebAuthn L3 §5.4.3: a user handle, when present (not null), is at most 64 bytes.
  const userHandle = handle === undefined ? undefined : binary(response, "userHandle", step, 64);
  const clientData = parseClientData(clientDataJSON, "authentication");
  const authenticatorData = parseAuthenticatorData(authenticatorDataBytes);
  return { id, clientDataJSON, clientData, authenticatorDataBytes, authenticatorData, signature, userHandle };
}
