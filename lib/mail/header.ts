/*
 * Header fields (RFC 5322 §2.2, §3.3, §3.6): CR or LF in a value is refused, never stripped; long values
 * fold before existing whitespace (§2.2.3 unfolds them exactly), aiming at 78 chars, never over 998.
 */
import type { Mailbox } from "./address.ts";
import { encodeWords } from "./encode.ts";
import { MailError } from "./errors.ts";

const SOFT_LIMIT = 78;
const HARD_LIMIT = 998;
const DAYS = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"] as const;
const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"] as const;

/** Throws `ERR_MAIL_HEADER_INJECTION` when `value` holds CR or LF. */
export function refuseCRLF(field: string, value: string): void {
  // RFC 5322 §2.2: CR and LF only end a header line; inside a value they would start a new field.
  if (/[\r\n]/.test(value)) {
    throw new MailError("ERR_MAIL_HEADER_INJECTION", `mail: header ${field} contains CR or LF`);
  }
}

/** Formats `d` as an RFC 5322 §3.3 date-time in UTC, e.g. "Tue, 01 Jul 2025 09:05:00 +0000". */
export function formatDate(d: Date): string {
  const two = (n: number): string => String(n).padStart(2, "0");
  const time = `${two(d.getUTCHours())}:${two(d.getUTCMinutes())}:${two(d.getUTCSeconds())}`;
  return `${DAYS[d.getUTCDay()]}, ${two(d.getUTCDate())} ${MONTHS[d.getUTCMonth()]} ${d.getUTCFullYear()} ${time} +0000`;
}

/**
 * Joins `chunks` after "Name: ", starting a continuation line before a chunk
 * that would overflow 78 chars. Every chunk after the first must begin with
 * whitespace. Returns undefined when a line would still exceed 998 chars.
 */
export function foldChunks(name: string, chunks: readonly string[]): string | undefined {
  const lines: string[] = [];
  let line = `${name}: ${chunks[0] ?? ""}`;
  for (const chunk of chunks.slice(1)) {
    if (line.length + chunk.length > SOFT_LIMIT) {
      lines.push(line);
      line = chunk;
    } else {
      line += chunk;
    }
  }
  lines.push(line);
  return lines.every((l) => l.length <= HARD_LIMIT) ? lines.join("\r\n") : undefined;
}

/** Splits text before each run of spaces between two non-spaces, so no folded line is only whitespace. */
function splitAtSpaces(text: string): string[] {
  return text.split(/(?<=[^ ])(?= +[^ ])/);
}

const PRINTABLE = /^[\x20-\x7e]*$/;

/** Formats the Subject field: as folded text when printable ASCII, else as RFC 2047 encoded-words. */
export function formatSubject(subject: string): string {
  refuseCRLF("Subject", subject);
  // RFC 2047 §5: text that looks like an encoded-word must itself be encoded to survive decoding.
  if (PRINTABLE.test(subject) && !subject.includes("=?")) {
    const folded = foldChunks("Subject", splitAtSpaces(subject));
    if (folded !== undefined) return folded;
  }
  return foldChunks("Subject", encodedChunks(subject)) ?? "";
}

/** RFC 2047 encoded-words of `text`, each after the first led by the space that folding may break at. */
function encodedChunks(text: string): string[] {
  return encodeWords(text).map((w, i) => (i === 0 ? w : " " + w));
}

const ATOM_PHRASE = /^[A-Za-z0-9!#$%&'*+\-/=?^_`{|}~ ]*$/;

/** Returns the chunks of one mailbox: bare address, or a display name followed by "<address>". */
function mailboxChunks(m: Mailbox): string[] {
  if (m.name === "") return [m.address];
  let name: string[];
  if (ATOM_PHRASE.test(m.name) && !m.name.includes("=?") && m.name.trim() !== "") {
    name = splitAtSpaces(m.name.trim());
  } else if (PRINTABLE.test(m.name) && !m.name.includes("=?")) {
    // RFC 5322 §3.2.4: a quoted-string escapes only backslash and double quote.
    name = ['"' + m.name.replace(/[\\"]/g, "\\$&") + '"'];
  } else {
    name = encodedChunks(m.name);
  }
  return [...name, ` <${m.address}>`];
}

/** Formats an address field ("From", "To") holding `mailboxes`, comma separated and folded. */
export function formatAddressField(name: string, mailboxes: readonly Mailbox[]): string {
  const chunks: string[] = [];
  mailboxes.forEach((m, i) => {
    const parts = mailboxChunks(m);
    if (i > 0) parts[0] = " " + parts[0];
    if (i < mailboxes.length - 1) parts[parts.length - 1] += ",";
    chunks.push(...parts);
  });
  const folded = foldChunks(name, chunks);
  if (folded === undefined) throw new MailError("ERR_MAIL_INVALID_HEADER", `mail: header ${name} has a part longer than 998 chars`);
  return folded;
}

/** Header names the builder writes itself; `Message.Headers` may not set them. */
export const RESERVED_HEADERS: ReadonlySet<string> = new Set([
  "from",
  "to",
  "cc",
  "bcc",
  "subject",
  "date",
  "message-id",
  "mime-version",
  "content-type",
  "content-transfer-encoding",
]);

/**
 * Formats a caller-supplied header field. Throws `ERR_MAIL_HEADER_INJECTION`
 * for CR/LF in the value and `ERR_MAIL_INVALID_HEADER` for a bad or reserved
 * name, a value that is not printable ASCII, or one that cannot be folded.
 */
export function formatCustomHeader(name: string, value: string): string {
  // RFC 5322 §3.6.8: a field name is printable ASCII except colon.
  if (!/^[!-9;-~]+$/.test(name)) throw new MailError("ERR_MAIL_INVALID_HEADER", "mail: invalid header name");
  if (RESERVED_HEADERS.has(name.toLowerCase())) {
    throw new MailError("ERR_MAIL_INVALID_HEADER", `mail: header ${name} is set by the builder`);
  }
  refuseCRLF(name, value);
  if (!/^[\x20-\x7e\t]*$/.test(value)) {
    throw new MailError("ERR_MAIL_INVALID_HEADER", `mail: header ${name} must be printable ASCII`);
  }
  const folded = foldChunks(name, value.split(/(?<=[^ \t])(?=[ \t]+[^ \t])/));
  if (folded === undefined) throw new MailError("ERR_MAIL_INVALID_HEADER", `mail: header ${name} has a part longer than 998 chars`);
  return folded;
}
