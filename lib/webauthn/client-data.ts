/*
 * Client data (WebAuthn L3 §5.8.1) and the checks both ceremonies make on it
 * (§7.1 steps 5-11, §7.2 steps 8-14: the numbers differ, the checks do not).
 * Origins are compared as exact strings: no normalisation, no wildcard, no
 * subdomain matching.
 */
import { equalSecret, ownField } from "../internal/index.ts";
import { encodeBase64url } from "./base64url.ts";
import { ceremonyError, PasskeyError } from "./errors.ts";

/** The fields of client data that latch checks. */
export interface ClientData {
  /** "webauthn.create" or "webauthn.get". */
  type: string;
  /** base64url challenge as the client saw it. */
  challenge: string;
  /** Origin of the calling document. */
  origin: string;
  /** True when called from a cross-origin iframe. */
  crossOrigin: boolean;
  /** Top-level origin when called from an iframe. */
  topOrigin: string | undefined;
}

/** Which ceremony a check belongs to. */
export type Ceremony = "registration" | "authentication";

/** What every ceremony's response must match (registration and authentication alike). */
export interface CeremonyExpectations {
  /** The challenge issued for this ceremony (at least 16 bytes). */
  challenge: Uint8Array;
  /** Accepted origins, compared exactly, e.g. "https://example.org". */
  origin: string | readonly string[];
  /** Accepted RP IDs, e.g. "example.org". */
  rpID: string | readonly string[];
  /** Whether the UV flag must be set. */
  requireUserVerification: boolean;
  /** Whether a cross-origin iframe may run the ceremony. @default false */
  allowCrossOrigin?: boolean;
  /** Accepted top-level origins when framed. @default [] */
  allowedTopOrigins?: readonly string[];
}

/** The part of `CeremonyExpectations` the client-data steps check, with the defaults applied. */
export type ClientDataExpectations = Pick<
  Required<CeremonyExpectations>,
  "challenge" | "origin" | "allowCrossOrigin" | "allowedTopOrigins"
>;

/** Picks the client-data expectations out of `expect`, applying the documented defaults. Throws ERR_PASSKEY_INVALID_OPTIONS. */
export function clientDataExpectations(expect: CeremonyExpectations, operation: string): ClientDataExpectations {
  // WebAuthn L3 §13.4.3: challenges carry at least 16 random bytes.
  if (expect.challenge.length < 16) {
    throw new PasskeyError("ERR_PASSKEY_INVALID_OPTIONS", `${operation}: challenge shorter than 16 bytes`, { step: "13.4.3: challenge" });
  }
  return {
    challenge: expect.challenge,
    origin: expect.origin,
    allowCrossOrigin: expect.allowCrossOrigin ?? false,
    allowedTopOrigins: expect.allowedTopOrigins ?? [],
  };
}

const STEPS = {
  registration: { section: "7.1", json: 5, parse: 6, type: 7, challenge: 8, origin: 9, cross: 10, top: 11 },
  authentication: { section: "7.2", json: 8, parse: 9, type: 10, challenge: 11, origin: 12, cross: 13, top: 14 },
} as const;

const utf8 = new TextDecoder("utf-8", { fatal: true });

function stepName(ceremony: Ceremony, key: Exclude<keyof (typeof STEPS)["registration"], "section">, what: string): string {
  const s = STEPS[ceremony];
  return `${s.section} step ${s[key]}: ${what}`;
}

/** Parses clientDataJSON. Throws PasskeyError ERR_PASSKEY_MALFORMED_CLIENT_DATA. */
export function parseClientData(bytes: Uint8Array, ceremony: Ceremony): ClientData {
  let text: string;
  let value: unknown;
  try {
    // WebAuthn L3 §7.1 step 5 / §7.2 step 8: UTF-8 decode, leading BOM stripped.
    text = utf8.decode(bytes);
  } catch (e) {
    throw ceremonyError("ERR_PASSKEY_MALFORMED_CLIENT_DATA", stepName(ceremony, "json", "UTF-8 decode"), "clientDataJSON is not UTF-8", e);
  }
  const step = stepName(ceremony, "parse", "client data");
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw ceremonyError("ERR_PASSKEY_MALFORMED_CLIENT_DATA", step, "clientDataJSON is not JSON", e);
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw ceremonyError("ERR_PASSKEY_MALFORMED_CLIENT_DATA", step, "clientDataJSON is not an object");
  }
  const [type, challenge, origin, crossOrigin, topOrigin] = ["type", "challenge", "origin", "crossOrigin", "topOrigin"].map((name) =>
    ownField(value, name),
  );
  if (typeof type !== "string" || typeof challenge !== "string" || typeof origin !== "string") {
    throw ceremonyError("ERR_PASSKEY_MALFORMED_CLIENT_DATA", step, "type, challenge and origin must be strings");
  }
  if (crossOrigin !== undefined && typeof crossOrigin !== "boolean") {
    throw ceremonyError("ERR_PASSKEY_MALFORMED_CLIENT_DATA", step, "crossOrigin must be a boolean");
  }
  if (topOrigin !== undefined && typeof topOrigin !== "string") {
    throw ceremonyError("ERR_PASSKEY_MALFORMED_CLIENT_DATA", step, "topOrigin must be a string");
  }
  return { type, challenge, origin, crossOrigin: crossOrigin === true, topOrigin };
}

/** Runs the client-data steps of a ceremony. Throws PasskeyError naming the failed step. */
export function verifyClientData(c: ClientData, expect: ClientDataExpectations, ceremony: Ceremony): void {
  const wantType = ceremony === "registration" ? "webauthn.create" : "webauthn.get";
  // WebAuthn L3 §7.1 step 7 / §7.2 step 10: C.type is webauthn.create / webauthn.get.
  if (c.type !== wantType) {
    throw ceremonyError("ERR_PASSKEY_TYPE", stepName(ceremony, "type", "type"), `client data type is not ${wantType}`);
  }
  // WebAuthn L3 §7.1 step 8 / §7.2 step 11: C.challenge equals base64url(challenge); constant time.
  if (!equalSecret(c.challenge, encodeBase64url(expect.challenge))) {
    throw ceremonyError("ERR_PASSKEY_CHALLENGE", stepName(ceremony, "challenge", "challenge"), "challenge does not match");
  }
  const origins = typeof expect.origin === "string" ? [expect.origin] : expect.origin;
  // WebAuthn L3 §7.1 step 9 / §7.2 step 12 (§13.4.9): C.origin is an expected origin, exact match.
  if (!origins.includes(c.origin)) {
    throw ceremonyError("ERR_PASSKEY_ORIGIN", stepName(ceremony, "origin", "origin"), "origin is not expected");
  }
  // WebAuthn L3 §7.1 step 10 / §7.2 step 13: crossOrigin true only where the RP expects iframes.
  if (c.crossOrigin && !expect.allowCrossOrigin) {
    throw ceremonyError("ERR_PASSKEY_CROSS_ORIGIN", stepName(ceremony, "cross", "crossOrigin"), "cross-origin use is not allowed");
  }
  if (c.topOrigin !== undefined) {
    // WebAuthn L3 §7.1 step 11.1 / §7.2 step 14.1: a topOrigin means the RP was framed.
    if (!expect.allowCrossOrigin) {
      throw ceremonyError("ERR_PASSKEY_CROSS_ORIGIN", stepName(ceremony, "top", "topOrigin"), "cross-origin use is not allowed");
    }
    // WebAuthn L3 §7.1 step 11.2 / §7.2 step 14.2: topOrigin is an expected framing page.
    if (!expect.allowedTopOrigins.includes(c.topOrigin)) {
      throw ceremonyError("ERR_PASSKEY_TOP_ORIGIN", stepName(ceremony, "top", "topOrigin"), "top origin is not expected");
    }
  }
}
