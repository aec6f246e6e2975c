/*
 * Transfer encodings, pure: 7-bit ASCII, CRLF, lines of at most 76 characters, so a message survives any
 * relay (RFC 5321 §4.5.3.1.6). Bodies quoted-printable (RFC 2045 §6.7), or base64 (§6.8) when more than a
 * fifth of the bytes need escaping; headers RFC 2047 "B" encoded-words of whole UTF-8 characters (§5).
 */

/** A body transfer encoding. */
export type TransferEncoding = "quoted-printable" | "base64";

/** Longest encoded line, without its CRLF (RFC 2045 §6.7 rule 5, §6.8). */
const MAX_LINE = 76;

/** UTF-8 bytes per encoded-word: 39 bytes are 52 base64 chars, 64 with `=?UTF-8?B?` and `?=`. */
const WORD_BYTES = 39;

/** Returns `text` with every line break (CRLF, CR or LF) turned into CRLF. */
export function normalizeNewlines(text: string): string {
  return text.replace(/\r\n|\r|\n/g, "\r\n");
}

/** Reports whether byte `b` may stand for itself in quoted-printable (RFC 2045 §6.7 rule 2). */
function isLiteral(b: number): boolean {
  return (b >= 33 && b <= 126 && b !== 61) || b === 32 || b === 9;
}

function escapeByte(b: number): string {
  return "=" + b.toString(16).toUpperCase().padStart(2, "0");
}

/** Chooses the body encoding for `text`: base64 when more than a fifth of its bytes need escaping. */
export function chooseTransferEncoding(text: string): TransferEncoding {
  const bytes = Buffer.from(text, "utf8");
  let escaped = 0;
  for (const b of bytes) if (!isLiteral(b) && b !== 10 && b !== 13) escaped++;
  return escaped * 5 > bytes.length ? "base64" : "quoted-printable";
}

/**
 * Encodes `text` (as UTF-8) in quoted-printable. Line breaks become CRLF hard
 * breaks; longer lines get soft breaks so no output line exceeds 76 chars.
 */
export function encodeQuotedPrintable(text: string): string {
  const out: string[] = [];
  for (const line of text.split(/\r\n|\r|\n/)) {
    const bytes = Buffer.from(line, "utf8");
    let current = "";
    for (let i = 0; i < bytes.length; i++) {
      const b = bytes[i] ?? 0;
      const last = i === bytes.length - 1;
      // RFC 2045 §6.7 rule 3: whitespace at the end of an encoded line must be escaped.
      const token = isLiteral(b) && !(last && (b === 32 || b === 9)) ? String.fromCharCode(b) : escapeByte(b);
      // Keep one column for the soft break "=" (rule 5); the final piece may use it.
      const limit = last ? MAX_LINE : MAX_LINE - 1;
      if (current.length + token.length > limit) {
        out.push(current + "=");
        current = "";
      }
      current += token;
    }
    out.push(current);
  }
  return out.join("\r\n");
}

/** Encodes `text` (as UTF-8, line breaks as CRLF) in base64, in lines of 76 chars. */
export function encodeBase64Lines(text: string): string {
  const b64 = Buffer.from(normalizeNewlines(text), "utf8").toString("base64");
  const out: string[] = [];
  for (let i = 0; i < b64.length; i += MAX_LINE) out.push(b64.slice(i, i + MAX_LINE));
  return out.join("\r\n");
}

/** Encodes `text` with `encoding`. */
export function encodeBody(text: string, encoding: TransferEncoding): string {
  return encoding === "base64" ? encodeBase64Lines(text) : encodeQuotedPrintable(text);
}

/** Encodes `text` as RFC 2047 "B" encoded-words of whole UTF-8 characters, 64 chars at most, foldable apart (§6.2). */
export function encodeWords(text: string): string[] {
  const words: string[] = [];
  let chunk: Buffer[] = [];
  let size = 0;
  const flush = (): void => {
    words.push(`=?UTF-8?B?${Buffer.concat(chunk).toString("base64")}?=`);
    chunk = [];
    size = 0;
  };
  for (const ch of text) {
    const bytes = Buffer.from(ch, "utf8");
    if (size + bytes.length > WORD_BYTES) flush();
    chunk.push(bytes);
    size += bytes.length;
  }
  if (size > 0 || words.length === 0) flush();
  return words;
}

/** Applies SMTP dot-stuffing (RFC 5321 §4.5.2): a line starting with "." gets one more. */
export function dotStuff(data: string): string {
  return data.replace(/(^|\r\n)\./g, "$1..");
}
