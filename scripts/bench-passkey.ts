/*
 * Passkey assertion verifications per second, in-process, a fixed number
 * of iterations each after a warm-up, on the W3C WebAuthn L3 vectors
 * `w3c/none-es256` (ES256) and `w3c/packed-eddsa` (Ed25519):
 *
 *   full       parseAuthenticationResponse + verifyAuthentication, from the
 *              browser's JSON each time (what a sign-in request costs)
 *   signature  verifySignature alone on a pre-parsed key (lib/webauthn's
 *              @noble/curves call)
 *   node       crypto.verify on the same key and signed bytes (OpenSSL),
 *              the bare signature check
 *
 * Usage: node dist/scripts/bench-passkey.js [iterations]  (prints JSON)
 */
import { Buffer } from "node:buffer";
import { createHash, createPublicKey, verify, type KeyObject } from "node:crypto";
import { fileURLToPath } from "node:url";
import { parseAuthenticationResponse, verifyAuthentication } from "../lib/webauthn/index.ts";
import { parseCOSEKey } from "../lib/webauthn/cose.ts";
import { verifySignature } from "../lib/webauthn/signature.ts";
import { authenticationCase, loadVectorFile, text, type Vector } from "../test/_support/passkey-vectors.ts";

/** Verifications per second of one algorithm. */
export interface PasskeyBench {
  alg: "ES256" | "Ed25519";
  vector: string;
  /** Timed iterations of the latch paths; node:crypto runs 10x as many. */
  iterations: number;
  fullPerSec: number;
  signaturePerSec: number;
  nodePerSec: number;
}

const VECTORS = [
  { alg: "ES256", name: "w3c/none-es256/authentication" },
  { alg: "Ed25519", name: "w3c/packed-eddsa/authentication" },
] as const;

function opsPerSec(iterations: number, fn: () => unknown): number {
  for (let i = 0; i < Math.max(50, iterations / 10); i++) fn();
  const start = performance.now();
  for (let i = 0; i < iterations; i++) fn();
  return Math.round((iterations * 1000) / (performance.now() - start));
}

function nodeKey(v: Vector): KeyObject {
  const key = parseCOSEKey(Buffer.from(text(v.input, "credentialPublicKey"), "base64url"), "bench");
  if (key.kty === "EC2") {
    // SEC 1 §2.3.3: an uncompressed point is 0x04 ‖ x ‖ y.
    const half = (key.point.length - 1) / 2;
    const x = Buffer.from(key.point.subarray(1, 1 + half)).toString("base64url");
    const y = Buffer.from(key.point.subarray(1 + half)).toString("base64url");
    return createPublicKey({ key: { kty: "EC", crv: "P-256", x, y }, format: "jwk" });
  }
  if (key.kty === "OKP")
    return createPublicKey({ key: { kty: "OKP", crv: "Ed25519", x: Buffer.from(key.x).toString("base64url") }, format: "jwk" });
  throw new Error("bench passkey: unexpected key type");
}

function benchOne(v: Vector, alg: "ES256" | "Ed25519", iterations: number): PasskeyBench {
  const { json, response: first, publicKey, expect } = authenticationCase(v, "bench");
  const signed = Buffer.concat([first.authenticatorDataBytes, createHash("sha256").update(first.clientDataJSON).digest()]);
  const cose = parseCOSEKey(publicKey, "bench");
  const key = nodeKey(v);
  const digest = alg === "ES256" ? "sha256" : null;
  // Each path must accept the vector before it is timed.
  verifyAuthentication(first, expect);
  if (!verifySignature(cose, signed, first.signature) || !verify(digest, signed, key, first.signature)) {
    throw new Error(`bench passkey: ${v.name} does not verify`);
  }
  return {
    alg,
    vector: v.name,
    iterations,
    fullPerSec: opsPerSec(iterations, () => verifyAuthentication(parseAuthenticationResponse(json), expect)),
    signaturePerSec: opsPerSec(iterations, () => verifySignature(cose, signed, first.signature)),
    nodePerSec: opsPerSec(iterations * 10, () => verify(digest, signed, key, first.signature)),
  };
}

/** Runs the passkey benchmark: `iterations` timed verifications per path and algorithm. */
export function benchPasskey(iterations = 500): PasskeyBench[] {
  const file = loadVectorFile("w3c-webauthn-l3.json");
  return VECTORS.map(({ alg, name }) => {
    const v = file.vectors.find((x) => x.name === name);
    if (v === undefined) throw new Error(`bench passkey: vector ${name} missing`);
    return benchOne(v, alg, iterations);
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const n = Number(process.argv[2] ?? "500");
  process.stdout.write(JSON.stringify(benchPasskey(Number.isInteger(n) && n > 0 ? n : 2000)) + "\n");
}
