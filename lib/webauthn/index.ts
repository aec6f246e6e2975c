/// <reference types="node" preserve="true" />
export { parseRegistrationResponse, parseAuthenticationResponse } from "./response.ts";
export { verifyRegistration } from "./verify-registration.ts";
export { verifyAuthentication, verifyAuthenticationWith } from "./verify-authentication.ts";
export { SignatureVerifier } from "./signature-verifier.ts";
export { DEFAULT_ALGORITHMS } from "./algorithms.ts";
export { PasskeyError, isPasskeyError } from "./errors.ts";
export type { RegistrationResponse, AuthenticationResponse } from "./response.ts";
export type { CeremonyExpectations } from "./client-data.ts";
export type { RegistrationExpectations, RegisteredCredential } from "./verify-registration.ts";
export type { AuthenticationExpectations, AuthenticationResult, StoredCredential } from "./verify-authentication.ts";
export type { AttestationType } from "./attestation.ts";
export type { SignatureVerifierOptions } from "./signature-verifier.ts";
export type { PasskeyErrorCode } from "./errors.ts";
// Named by the signatures above (issue 42: a public signature names only public types): PasskeyErrorCode is a key of PASSKEY_ERROR_CODES.
export { PASSKEY_ERROR_CODES } from "./errors.ts";
export type { PasskeyErrorOptions } from "./errors.ts";
export type { AttestationObject } from "./attestation-object.ts";
export type { ClientData } from "./client-data.ts";
export type { AuthenticatorData } from "./authenticator-data.ts";
export type { COSEPublicKey } from "./cose.ts";
export type { AuthenticatorFlags, AttestedCredentialData } from "./authenticator-data.ts";
export type { Curve } from "./algorithms.ts";
