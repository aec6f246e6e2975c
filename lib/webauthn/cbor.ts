/*
 * CBOR decoding in two passes. A structural scan finds where one item ends
 * (authenticator data embeds a COSE key, stored as its exact bytes) and
 * refuses, before anything is allocated, what WebAuthn never sends: lengths
 * beyond the input, nesting deeper than MAX_CBOR_DEPTH, indefinite lengths
 * and tags (the CTAP2 canonical form WebAuthn L3 §6.5.1 requires has
 * neither), reserved header values. Then cbor-x decodes exactly that slice.
 */
import { cborDecoder } from "./lazy-deps.ts";
import { ceremonyError } from "./errors.ts";
import type { PasskeyErrorCode } from "./errors.ts";

/** Deepest array/map nesting accepted in any WebAuthn CBOR structure. */
export const MAX_CBOR_DEPTH = 16;

/** Which error to raise when CBOR is malformed. */
export interface CBORContext {
  /** Error code for malformed input. */
  code: PasskeyErrorCode;
  /** WebAuthn step being performed. */
  step: string;
}

class ScanError extends Error {}

function readArgument(bytes: Uint8Array, pos: number, info: number): [value: number, next: number] {
  if (info < 24) return [info, pos + 1];
  const size = info === 24 ? 1 : info === 25 ? 2 : info === 26 ? 4 : info === 27 ? 8 : 0;
  if (size === 0) throw new ScanError(info === 31 ? "indefinite length" : "reserved header value");
  if (pos + 1 + size > bytes.length) throw new ScanError("truncated header");
  let value = 0;
  for (let i = 1; i <= size; i++) value = value * 256 + (bytes[pos + i] ?? 0);
  return [value, pos + 1 + size];
}

function scan(bytes: Uint8Array, pos: number, depth: number): number {
  if (pos >= bytes.length) throw new ScanError("truncated");
  const first = bytes[pos] ?? 0;
  const major = first >> 5;
  const info = first & 0x1f;
  if (major === 7) {
    // Simple values false/true/null/undefined and floats only.
    if (info >= 20 && info <= 23) return pos + 1;
    if (info >= 25 && info <= 27) return readArgument(bytes, pos, info)[1];
    throw new ScanError("unsupported simple value");
  }
  if (major === 6) throw new ScanError("tags are not allowed");
  const [arg, next] = readArgument(bytes, pos, info);
  const remaining = bytes.length - next;
  switch (major) {
    case 0:
    case 1:
      return next;
    case 2:
    case 3:
      if (arg > remaining) throw new ScanError("declared length exceeds input");
      return next + arg;
    default: {
      // Arrays (4) and maps (5): every element takes at least one byte.
      const count = major === 5 ? arg * 2 : arg;
      if (count > remaining) throw new ScanError("declared length exceeds input");
      if (depth + 1 > MAX_CBOR_DEPTH) throw new ScanError("nested too deeply");
      let at = next;
      for (let i = 0; i < count; i++) at = scan(bytes, at, depth + 1);
      return at;
    }
  }
}

/**
 * Decodes the one CBOR item that starts at `offset` and returns it with the
 * offset just past it. Throws PasskeyError(context) on malformed input.
 */
export function decodeCBORItem(bytes: Uint8Array, offset: number, context: CBORContext): [value: unknown, end: number] {
  let end: number;
  try {
    end = scan(bytes, offset, 0);
  } catch (e) {
    const reason = e instanceof ScanError ? e.message : "unreadable";
    throw ceremonyError(context.code, context.step, `malformed CBOR: ${reason}`, e);
  }
  try {
    const value: unknown = cborDecoder().decode(bytes.subarray(offset, end));
    return [value, end];
  } catch (e) {
    throw ceremonyError(context.code, context.step, "malformed CBOR: undecodable", e);
  }
}

/** Decodes `bytes` as exactly one CBOR item; leftover bytes are refused. */
export function decodeCBOR(bytes: Uint8Array, context: CBORContext): unknown {
  const [value, end] = decodeCBORItem(bytes, 0, context);
  if (end !== bytes.length) {
    throw ceremonyError(context.code, context.step, `malformed CBOR: ${bytes.length - end} leftover bytes`);
  }
  return value;
}
