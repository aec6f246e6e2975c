/*
 * Loads the WebAuthn vector files in test/fixtures/passkey (see its
 * README.md) and turns an entry into the inputs latch's verifiers take: the
 * browser's PublicKeyCredential.toJSON() shape plus expectations.
 */
import { readFileSync } from "node:fs";
import { X509Certificate } from "node:crypto";
import { Buffer } from "node:buffer";
import { parseAuthenticationResponse, type AuthenticationExpectations, type AuthenticationResponse } from "../../lib/webauthn/index.ts";

/** One ceremony vector, as far as the tests read it. */
export interface Vector {
  name: string;
  ceremony: "registration" | "authentication";
  input: Record<string, unknown>;
  expected: { challenge: string; origin: string | string[]; rpId: string | string[] };
  options: Record<string, unknown>;
  outcome: { ok: boolean; failsCheck?: string };
  facts: Record<string, unknown>;
}

/** A vector file's entries and named trust anchors (DER). */
export interface VectorFile {
  vectors: Vector[];
  anchors: Map<string, Uint8Array>;
  raw: Record<string, unknown>;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** Reads and narrows one fixture file by name, e.g. "w3c-webauthn-l3.json". */
export function loadVectorFile(name: string): VectorFile {
  const url = new URL(`../../../test/fixtures/passkey/${name}`, import.meta.url);
  const raw: unknown = JSON.parse(readFileSync(url, "utf8"));
  if (!isObject(raw) || !Array.isArray(raw["vectors"]) || !isObject(raw["trustAnchors"])) throw new Error(`fixture ${name}: bad shape`);
  const vectors: Vector[] = [];
  for (const v of raw["vectors"]) {
    if (!isObject(v) || typeof v["name"] !== "string" || !isObject(v["input"]) || !isObject(v["expected"]) || !isObject(v["outcome"])) {
      throw new Error(`fixture ${name}: bad vector`);
    }
    const e = v["expected"];
    const o = v["outcome"];
    const ceremony = v["ceremony"];
    if (ceremony !== "registration" && ceremony !== "authentication") throw new Error("bad ceremony");
    if (typeof e["challenge"] !== "string") throw new Error("bad challenge");
    const origin = e["origin"];
    const rpId = e["rpId"];
    vectors.push({
      name: v["name"],
      ceremony,
      input: v["input"],
      expected: {
        challenge: e["challenge"],
        origin: typeof origin === "string" ? origin : strings(origin),
        rpId: typeof rpId === "string" ? rpId : strings(rpId),
      },
      options: isObject(v["options"]) ? v["options"] : {},
      outcome: typeof o["failsCheck"] === "string" ? { ok: o["ok"] === true, failsCheck: o["failsCheck"] } : { ok: o["ok"] === true },
      facts: isObject(v["facts"]) ? v["facts"] : {},
    });
  }
  const anchors = new Map<string, Uint8Array>();
  for (const [key, value] of Object.entries(raw["trustAnchors"])) {
    if (!isObject(value)) continue;
    const der = value["derB64u"];
    const pem = value["pem"];
    if (typeof der === "string") anchors.set(key, new Uint8Array(Buffer.from(der, "base64url")));
    else if (typeof pem === "string") anchors.set(key, new Uint8Array(new X509Certificate(pem).raw));
  }
  return { vectors, anchors, raw };
}

/** Narrows a JSON array of strings. */
export function strings(value: unknown): string[] {
  if (!Array.isArray(value) || !value.every((s) => typeof s === "string")) throw new Error("expected a string array");
  return value;
}

/** Reads a string field of a vector's input. */
export function text(input: Record<string, unknown>, key: string): string {
  const value = input[key];
  if (typeof value !== "string") throw new Error(`input.${key} is not a string`);
  return value;
}

/** The flags byte recorded in `facts.flags`, e.g. "UP|BE|BS (0x19)". */
export function factFlags(v: Vector): number {
  const flags = v.facts["flags"];
  const m = typeof flags === "string" ? /\(0x([0-9a-f]{2})\)/i.exec(flags) : null;
  return m?.[1] === undefined ? 0 : Number.parseInt(m[1], 16);
}

/** The registration JSON a browser would send for this vector. */
export function registrationJSON(v: Vector): unknown {
  const id = text(v.input, "credentialId");
  return {
    id,
    rawId: id,
    type: "public-key",
    response: { clientDataJSON: text(v.input, "clientDataJSON"), attestationObject: text(v.input, "attestationObject"), transports: [] },
    clientExtensionResults: {},
  };
}

/** The authentication JSON a browser would send for this vector. */
export function authenticationJSON(v: Vector): unknown {
  const id = text(v.input, "credentialId");
  return {
    id,
    rawId: id,
    type: "public-key",
    response: {
      clientDataJSON: text(v.input, "clientDataJSON"),
      authenticatorData: text(v.input, "authenticatorData"),
      signature: text(v.input, "signature"),
      userHandle: v.input["userHandle"] ?? null,
    },
    clientExtensionResults: {},
  };
}

/** An authentication vector ready for a verifier: the browser's JSON, its parsed form, and the credential's key. */
export interface AuthenticationCase {
  json: unknown;
  response: AuthenticationResponse;
  publicKey: Buffer;
  /** The vector's challenge, origin and RP ID; no user verification required; a stored count of 0; owned by `subject`. */
  expect: AuthenticationExpectations;
}

/** Returns the plain verification case of authentication vector `v` for a credential owned by `subject`. */
export function authenticationCase(v: Vector, subject: string): AuthenticationCase {
  const json = authenticationJSON(v);
  const response = parseAuthenticationResponse(json);
  const publicKey = Buffer.from(text(v.input, "credentialPublicKey"), "base64url");
  const expect: AuthenticationExpectations = {
    challenge: Buffer.from(v.expected.challenge, "base64url"),
    origin: v.expected.origin,
    rpID: v.expected.rpId,
    requireUserVerification: false,
    expectedSubject: subject,
    credential: { id: response.id, subject, signCount: 0, backupEligible: response.authenticatorData.flags.backupEligible, publicKey },
  };
  return { json, response, publicKey, expect };
}
