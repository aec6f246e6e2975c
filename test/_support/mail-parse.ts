/*
 * A deliberately small reader of the messages latch builds, for test
 * assertions: unfolds headers, decodes RFC 2047 encoded-words (B and Q),
 * quoted-printable and base64 bodies, and splits one level of multipart.
 * It is an independent decoder, so round-trip tests check the encoder
 * against something other than itself.
 */

/** A parsed message. */
export interface ParsedMail {
  /** Unfolded header values by lower-cased name (first occurrence). */
  headers: Map<string, string>;
  /** The decoded Subject. */
  subject: string;
  /** The decoded text/plain body, line breaks as CRLF. */
  text: string | undefined;
  /** The decoded text/html body, when present. */
  html: string | undefined;
}

/** Decodes quoted-printable (RFC 2045 §6.7) to the UTF-8 string it carries. */
export function decodeQuotedPrintable(s: string): string {
  const joined = s.replace(/=\r\n/g, "");
  const bytes: number[] = [];
  for (let i = 0; i < joined.length; i++) {
    const c = joined.charCodeAt(i);
    if (c === 61) {
      const h = joined.slice(i + 1, i + 3);
      if (!/^[0-9A-F]{2}$/.test(h)) throw new Error(`bad QP escape at ${i}`);
      bytes.push(parseInt(h, 16));
      i += 2;
    } else {
      bytes.push(c);
    }
  }
  return Buffer.from(bytes).toString("utf8");
}

/** Decodes base64 lines to the UTF-8 string they carry. */
export function decodeBase64(s: string): string {
  return Buffer.from(s.replace(/\r\n/g, ""), "base64").toString("utf8");
}

/** Decodes RFC 2047 encoded-words in an unfolded header value; whitespace between adjacent words is dropped (§6.2). */
export function decodeWords(value: string): string {
  const WORD = /=\?([^?]+)\?([BbQq])\?([^?]*)\?=/g;
  const joined = value.replace(/(\?=)\s+(?==\?)/g, "$1");
  return joined.replace(WORD, (_m, _charset: string, enc: string, text: string) => {
    if (enc.toUpperCase() === "B") return Buffer.from(text, "base64").toString("utf8");
    return decodeQuotedPrintable(text.replace(/_/g, "=20"));
  });
}

/** Splits a header block into unfolded values by lower-cased name. */
export function parseHeaders(block: string): Map<string, string> {
  const headers = new Map<string, string>();
  for (const field of block.replace(/\r\n(?=[ \t])/g, "").split("\r\n")) {
    const colon = field.indexOf(":");
    if (colon <= 0) continue;
    const name = field.slice(0, colon).toLowerCase();
    if (!headers.has(name)) headers.set(name, field.slice(colon + 1).replace(/^[ \t]/, ""));
  }
  return headers;
}

function splitEntity(raw: string): [headers: Map<string, string>, body: string] {
  const end = raw.indexOf("\r\n\r\n");
  if (end < 0) return [parseHeaders(raw), ""];
  return [parseHeaders(raw.slice(0, end)), raw.slice(end + 4)];
}

function decodeBody(headers: Map<string, string>, body: string): string {
  const cte = (headers.get("content-transfer-encoding") ?? "7bit").toLowerCase();
  // The CRLF before a boundary, or ending the message, is not content (RFC 2046 §5.1.1).
  const trimmed = body.replace(/\r\n$/, "");
  if (cte === "quoted-printable") return decodeQuotedPrintable(trimmed);
  if (cte === "base64") return decodeBase64(trimmed);
  return trimmed;
}

/** Parses `raw` (CRLF line endings, as received after DATA). */
export function parseMail(raw: string): ParsedMail {
  const [headers, body] = splitEntity(raw);
  const subject = decodeWords(headers.get("subject") ?? "");
  const type = headers.get("content-type") ?? "text/plain";
  const result: ParsedMail = { headers, subject, text: undefined, html: undefined };
  const boundary = /boundary="([^"]+)"/.exec(type)?.[1];
  const parts: Array<[Map<string, string>, string]> = [];
  if (type.startsWith("multipart/") && boundary !== undefined) {
    const sections = body.split(`--${boundary}`);
    for (const section of sections.slice(1, -1)) parts.push(splitEntity(section.replace(/^\r\n/, "")));
  } else {
    parts.push([headers, body]);
  }
  for (const [h, b] of parts) {
    const ct = h.get("content-type") ?? "text/plain";
    if (ct.startsWith("text/plain")) result.text = decodeBody(h, b);
    if (ct.startsWith("text/html")) result.html = decodeBody(h, b);
  }
  return result;
}
