/*
 * Sealed blobs: a JSON value with an expiry, carried by the browser and authenticated with HMAC-SHA-256
 * (SPEC.md §2.6), so the server keeps no state between two requests: the OIDC pending blob between the redirect to
 * the provider and the return, and MCP's `requestState` between an `input_required` answer and its retry.
 * Format: base64url(JSON {"exp": <unix ms>, "data": <value>}) "." base64url(HMAC(key, first part)), a
 * valid cookie value. Authenticated, not encrypted: the browser can read it. The key is `deriveKey`'s.
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import { ownField } from "./own-field.ts";

/** Largest sealed blob `openBlob` will look at, in characters (a cookie is at most 4 KiB). */
export const MAX_SEALED_LENGTH: number = 4096;

/** The outcome of `openBlob`. */
export type OpenResult = { ok: true; data: unknown } | { ok: false; reason: "malformed" | "bad_mac" | "expired" };

function mac(key: Buffer, body: string): Buffer {
  return createHmac("sha256", key).update(body, "ascii").digest();
}

/** Seals `data` (any JSON value) so that `openBlob` accepts it until `expiresAt`. */
export function sealBlob(key: Buffer, data: unknown, expiresAt: Date): string {
  const body = Buffer.from(JSON.stringify({ exp: expiresAt.getTime(), data }), "utf8").toString("base64url");
  return `${body}.${mac(key, body).toString("base64url")}`;
}

const BASE64URL = /^[A-Za-z0-9_-]+$/;

/**
 * Opens a sealed blob: checks its MAC in constant time, then its expiry
 * against `now`. A blob that expires exactly at `now` is expired. Never
 * throws on bad input; the reason says what was wrong.
 */
export function openBlob(key: Buffer, sealed: string, now: Date): OpenResult {
  if (sealed.length > MAX_SEALED_LENGTH) return { ok: false, reason: "malformed" };
  const parts = sealed.split(".");
  const body = parts[0];
  const tag = parts[1];
  if (parts.length !== 2 || body === undefined || tag === undefined) return { ok: false, reason: "malformed" };
  if (!BASE64URL.test(body) || !BASE64URL.test(tag)) return { ok: false, reason: "malformed" };
  const want = mac(key, body);
  const got = Buffer.from(tag, "base64url");
  // Re-encoding catches non-canonical base64url (stray low bits in the last character).
  if (got.toString("base64url") !== tag) return { ok: false, reason: "bad_mac" };
  // Compare MACs in constant time (docs/design.md §5: secrets are compared in constant time).
  if (got.length !== want.length || !timingSafeEqual(got, want)) return { ok: false, reason: "bad_mac" };
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(body, "base64url").toString("utf8"));
  } catch {
    return { ok: false, reason: "malformed" };
  }
  if (typeof parsed !== "object" || parsed === null || !Object.hasOwn(parsed, "data")) return { ok: false, reason: "malformed" };
  const exp = ownField(parsed, "exp");
  if (typeof exp !== "number" || !Number.isFinite(exp)) return { ok: false, reason: "malformed" };
  if (now.getTime() >= exp) return { ok: false, reason: "expired" };
  return { ok: true, data: ownField(parsed, "data") };
}
