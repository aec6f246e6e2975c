/*
 * The heavy dependencies, loaded on first use: @noble/curves builds its curves
 * (tens of ms on a small machine) and cbor-x its decoder, and a socket-activated
 * process should answer its first request without paying for a ceremony nobody
 * started. Node 22.13+ `require`s ES modules synchronously, so checks stay synchronous.
 */
import { createRequire } from "node:module";
import type { Decoder } from "cbor-x";

type Nist = typeof import("@noble/curves/nist.js");
type Ed25519 = typeof import("@noble/curves/ed25519.js");
type Ed448 = typeof import("@noble/curves/ed448.js");

const load = createRequire(import.meta.url);
let nist: Nist | undefined;
let ed25519: Ed25519 | undefined;
let ed448: Ed448 | undefined;
let decoder: Decoder | undefined;

/** @noble/curves' P-256, P-384 and P-521. */
export function nistCurves(): Nist {
  return (nist ??= load("@noble/curves/nist.js") as Nist);
}

/** @noble/curves' Ed25519. */
export function ed25519Curve(): Ed25519["ed25519"] {
  return (ed25519 ??= load("@noble/curves/ed25519.js") as Ed25519).ed25519;
}

/** @noble/curves' Ed448. */
export function ed448Curve(): Ed448["ed448"] {
  return (ed448 ??= load("@noble/curves/ed448.js") as Ed448).ed448;
}

/** The one cbor-x decoder: maps as Maps (so keys keep their CBOR types), no record extension. */
export function cborDecoder(): Decoder {
  if (decoder === undefined) {
    const { Decoder: DecoderClass } = load("cbor-x") as typeof import("cbor-x");
    decoder = new DecoderClass({ mapsAsObjects: false, useRecords: false });
  }
  return decoder;
}
