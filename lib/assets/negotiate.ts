/*
 * Pure header logic of the asset handler, tested on strings alone. Among the
 * codings held, the highest q-value wins, ties going to br, then gzip, then
 * identity; identity not named is acceptable at the lowest rank (RFC 9110
 * §12.5.3), so chosen only when no compressed variant is. q=0 refuses.
 */
/** A content coding the asset handler can send. */
export type Coding = "br" | "gzip" | "identity";

const PREFERENCE: readonly Coding[] = ["br", "gzip", "identity"];

// An identity coding the header does not mention ranks below any listed coding.
const IMPLICIT_IDENTITY_Q = 0.0001;

/** The coding to send for `Accept-Encoding` of those available, or undefined when every one is refused (the handler answers 406). */
export function chooseCoding(header: string | undefined, available: ReadonlySet<Coding>): Coding | undefined {
  // RFC 9110 §12.5.3: no Accept-Encoding field means any coding is acceptable; we send identity.
  if (header === undefined) return "identity";
  const q = parseAcceptEncoding(header);
  const star = q.get("*");
  let best: Coding | undefined;
  let bestQ = 0;
  for (const coding of PREFERENCE) {
    if (!available.has(coding)) continue;
    let weight = q.get(coding) ?? star;
    // RFC 9110 §12.5.3: identity is acceptable unless refused by "identity;q=0" or "*;q=0".
    if (weight === undefined) weight = coding === "identity" ? IMPLICIT_IDENTITY_Q : 0;
    if (weight > bestQ) {
      best = coding;
      bestQ = weight;
    }
  }
  return best;
}

/** Parses `Accept-Encoding` into coding -> q-value: malformed members skipped, a malformed q-value 0, `x-gzip` as `gzip` (RFC 9110 §8.4.1.3). */
export function parseAcceptEncoding(header: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const member of header.split(",")) {
    const [rawName, ...params] = member.split(";");
    let name = (rawName ?? "").trim().toLowerCase();
    if (name === "") continue;
    if (name === "x-gzip") name = "gzip";
    let weight = 1;
    for (const param of params) {
      const [key, value] = param.split("=").map((s) => s.trim());
      if (key?.toLowerCase() === "q") weight = parseQValue(value ?? "");
    }
    out.set(name, Math.max(weight, out.get(name) ?? 0));
  }
  return out;
}

// RFC 9110 §12.4.2: qvalue = ( "0" [ "." 0*3DIGIT ] ) / ( "1" [ "." 0*3("0") ] ).
function parseQValue(text: string): number {
  if (!/^(0(\.\d{0,3})?|1(\.0{0,3})?)$/.test(text)) return 0;
  return Number(text);
}

/** Whether `If-None-Match` matches `etag` (quoted, strong): `*`, or any member, a weak `W/` one too (the weak comparison, RFC 9110 §13.1.2). */
export function matchesIfNoneMatch(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  return header.trim() === "*" || header.split(",").some((member) => member.trim().replace(/^W\//, "") === etag);
}
