/*
 * Strict base64url (RFC 4648 §5). Buffer's decoder silently skips characters
 * outside the alphabet, so the text is checked first: alphabet, `=` padding
 * (the JSON form has none, some clients add it), length, size limit.
 */
import { Buffer } from "node:buffer";

const BASE64URL = /^[A-Za-z0-9_-]*$/;

/** Encodes bytes as base64url without padding. */
export function encodeBase64url(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64url");
}

/**
 * Decodes base64url (padding optional) into bytes, or returns undefined when
 * the text is not base64url or would decode to more than `maxBytes` bytes.
 */
export function decodeBase64url(text: string, maxBytes: number): Uint8Array | undefined {
  let body = text;
  if (body.endsWith("==")) body = body.slice(0, -2);
  else if (body.endsWith("=")) body = body.slice(0, -1);
  if (body !== text && text.length % 4 !== 0) return undefined;
  // RFC 4648 §5: one leftover character cannot encode a whole byte.
  if (body.length % 4 === 1 || !BASE64URL.test(body)) return undefined;
  if (Math.floor((body.length * 3) / 4) > maxBytes) return undefined;
  const decoded = Buffer.from(body, "base64url");
  return new Uint8Array(decoded.buffer, decoded.byteOffset, decoded.byteLength);
}
