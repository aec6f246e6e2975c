/*
 * The X.509 work attestation needs: node:crypto's X509Certificate, plus a
 * bounds-checked DER walker for what Node does not expose (the version and
 * arbitrary extensions, e.g. the FIDO AAGUID extension).
 */
import { Buffer } from "node:buffer";
import { X509Certificate, verify } from "node:crypto";
import { ALGORITHMS } from "./algorithms.ts";
import { verifyRSA } from "./signature.ts";

/** DER of the OID 1.3.6.1.4.1.45724.1.1.4 (id-fido-gen-ce-aaguid), content bytes. */
export const OID_FIDO_AAGUID = "2b0601040182e51c010104";

const NODE_CURVES: Readonly<Record<string, string>> = { "P-256": "prime256v1", "P-384": "secp384r1", "P-521": "secp521r1" };

class DERError extends Error {}

function readTLV(bytes: Uint8Array, pos: number, end: number): [tag: number, start: number, next: number] {
  if (pos + 2 > end) throw new DERError("truncated");
  const tag = bytes[pos] ?? 0;
  let len = bytes[pos + 1] ?? 0;
  let start = pos + 2;
  if (len >= 0x80) {
    const n = len & 0x7f;
    if (n === 0 || n > 4 || start + n > end) throw new DERError("bad length");
    len = 0;
    for (let i = 0; i < n; i++) len = len * 256 + (bytes[start + i] ?? 0);
    start += n;
  }
  if (start + len > end) throw new DERError("length exceeds input");
  return [tag, start, start + len];
}

/** Parses DER certificate bytes; returns undefined when they are not a certificate. */
export function parseCertificate(der: Uint8Array): X509Certificate | undefined {
  try {
    return new X509Certificate(der);
  } catch {
    return undefined;
  }
}

/** A certificate's version (1-3) and its extensions, from the DER. */
export interface CertificateFields {
  /** X.509 version number (3 for v3). */
  version: number;
  /** Extensions by OID (hex of the OID content bytes). */
  extensions: Map<string, { critical: boolean; value: Uint8Array }>;
}

/** Reads the version and extensions of a DER certificate, or undefined if malformed. */
export function readCertificateFields(der: Uint8Array): CertificateFields | undefined {
  try {
    const [, certStart, certEnd] = readTLV(der, 0, der.length);
    const [tbsTag, tbsStart, tbsEnd] = readTLV(der, certStart, certEnd);
    if (tbsTag !== 0x30) return undefined;
    let version = 1;
    const extensions = new Map<string, { critical: boolean; value: Uint8Array }>();
    let pos = tbsStart;
    while (pos < tbsEnd) {
      const [tag, start, next] = readTLV(der, pos, tbsEnd);
      if (tag === 0xa0) {
        const [, vStart, vEnd] = readTLV(der, start, next);
        if (vEnd - vStart !== 1) return undefined;
        version = (der[vStart] ?? 0) + 1;
      } else if (tag === 0xa3) {
        const [, listStart, listEnd] = readTLV(der, start, next);
        let at = listStart;
        while (at < listEnd) {
          const [, extStart, extEnd] = readTLV(der, at, listEnd);
          const [oidTag, oidStart, oidEnd] = readTLV(der, extStart, extEnd);
          if (oidTag !== 0x06) return undefined;
          let [tag2, s2, n2] = readTLV(der, oidEnd, extEnd);
          let critical = false;
          if (tag2 === 0x01) {
            critical = der[s2] !== 0;
            [tag2, s2, n2] = readTLV(der, n2, extEnd);
          }
          if (tag2 !== 0x04) return undefined;
          extensions.set(Buffer.from(der.subarray(oidStart, oidEnd)).toString("hex"), { critical, value: der.slice(s2, n2) });
          at = extEnd;
        }
      }
      pos = next;
    }
    return { version, extensions };
  } catch {
    return undefined;
  }
}

/** Returns the 16-byte AAGUID inside an id-fido-gen-ce-aaguid extension value, or undefined. */
export function readAAGUIDExtension(value: Uint8Array): Uint8Array | undefined {
  try {
    const [tag, start, next] = readTLV(value, 0, value.length);
    if (tag !== 0x04 || next !== value.length || next - start !== 16) return undefined;
    return value.slice(start, next);
  } catch {
    return undefined;
  }
}

/**
 * Reports whether `signature` over `data` verifies with the certificate's
 * public key under COSE algorithm `alg`, the key's type matching `alg`.
 * Never throws.
 */
export function verifyWithCertificate(alg: number, cert: X509Certificate, data: Uint8Array, signature: Uint8Array): boolean {
  const spec = ALGORITHMS.get(alg);
  if (spec === undefined) return false;
  try {
    const key = cert.publicKey;
    const type = key.asymmetricKeyType;
    switch (spec.kty) {
      case "EC2": {
        const curve = key.asymmetricKeyDetails?.namedCurve;
        if (type !== "ec" || !spec.curves.some((c) => NODE_CURVES[c] === curve)) return false;
        return verify(spec.hash, data, { key, dsaEncoding: "der" }, signature);
      }
      case "OKP":
        if (!spec.curves.some((c) => c.toLowerCase() === type)) return false;
        return verify(null, data, key, signature);
      case "RSA":
        if (type !== "rsa") return false;
        return verifyRSA(alg, key, data, signature);
    }
  } catch {
    return false;
  }
}

function validAt(cert: X509Certificate, now: Date): boolean {
  const from = Date.parse(cert.validFrom);
  const to = Date.parse(cert.validTo);
  return Number.isFinite(from) && Number.isFinite(to) && from <= now.getTime() && now.getTime() <= to;
}

function issuedBy(child: X509Certificate, issuer: X509Certificate): boolean {
  try {
    return child.checkIssued(issuer) && child.verify(issuer.publicKey);
  } catch {
    return false;
  }
}

/**
 * Reports whether `chain` (leaf first, as x5c carries it) is valid at `now`
 * and ends at, or is issued by, one of `anchors` (DER). Every issuer must be
 * a CA. Revocation is not checked.
 */
export function verifyChain(chain: readonly X509Certificate[], anchors: readonly Uint8Array[], now: Date): boolean {
  const last = chain.at(-1);
  if (last === undefined) return false;
  for (const [i, cert] of chain.entries()) {
    const parent = chain[i + 1];
    if (!validAt(cert, now) || (parent !== undefined && (!parent.ca || !issuedBy(cert, parent)))) return false;
  }
  return anchors.some((der) => {
    const anchor = parseCertificate(der);
    if (anchor === undefined) return false;
    return Buffer.compare(anchor.raw, last.raw) === 0 || (anchor.ca && validAt(anchor, now) && issuedBy(last, anchor));
  });
}
