/*
 * Builds the RFC 5322 text of a `Message`, pure: headers, then one text/plain part or a
 * multipart/alternative (RFC 2046 §5.1.4) of text/plain then text/html. The boundary starts with "=_",
 * which neither quoted-printable nor base64 writes, so it cannot occur in a body (RFC 2046 §5.1.1).
 */
import { cryptoRandom, systemClock } from "../http/index.ts";
import type { Clock, RandomReader } from "../http/index.ts";
import { isHostname, parseAddress } from "./address.ts";
import type { Mailbox } from "./address.ts";
import { chooseTransferEncoding, encodeBody, normalizeNewlines } from "./encode.ts";
import { MailError } from "./errors.ts";
import { formatAddressField, formatCustomHeader, formatDate, formatSubject } from "./header.ts";
import type { Message } from "./types.ts";

/** Options of `buildMessage`. */
export interface BuildOptions {
  /** Source of the Date header. @default systemClock */
  clock?: Clock;
  /** Right-hand side of the Message-ID. @default the domain of `From` */
  messageIdDomain?: string;
  /** Source of the Message-ID and boundary bytes. @default cryptoRandom */
  random?: RandomReader;
}

/** A built message with the SMTP envelope taken from its addresses. */
export interface ComposedMessage {
  /** The envelope sender (MAIL FROM). */
  from: string;
  /** The envelope recipients (RCPT TO), in order. */
  recipients: string[];
  /** The Message-ID header value, with angle brackets. */
  messageId: string;
  /** The message text: headers, blank line, body; CRLF line endings, not dot-stuffed. */
  data: string;
}

function hex(random: RandomReader, n: number): string {
  return Buffer.from(random.read(n)).toString("hex");
}

function bodyPart(contentType: string, text: string): string {
  const encoding = chooseTransferEncoding(normalizeNewlines(text));
  return `Content-Type: ${contentType}; charset=utf-8\r\nContent-Transfer-Encoding: ${encoding}\r\n\r\n${encodeBody(text, encoding)}\r\n`;
}

/**
 * Validates `msg` and builds its text and envelope. Throws
 * `ERR_MAIL_HEADER_INJECTION` (CR/LF in any header value),
 * `ERR_MAIL_INVALID_ADDRESS` or `ERR_MAIL_INVALID_HEADER`.
 */
export function composeMessage(msg: Message, options: BuildOptions = {}): ComposedMessage {
  const random = options.random ?? cryptoRandom;
  const from = parseAddress(msg.From);
  const toList = typeof msg.To === "string" ? [msg.To] : msg.To;
  if (toList.length === 0) throw new MailError("ERR_MAIL_INVALID_ADDRESS", "mail: invalid address: no recipients");
  const to: Mailbox[] = toList.map(parseAddress);
  const domain = options.messageIdDomain ?? from.address.slice(from.address.lastIndexOf("@") + 1);
  // RFC 5322 §3.6.4: msg-id is "<" id-left "@" id-right ">"; a hostname keeps it unambiguous.
  if (!isHostname(domain)) throw new MailError("ERR_MAIL_INVALID_HEADER", "mail: messageIdDomain must be a hostname");
  const messageId = `<${hex(random, 16)}@${domain}>`;
  const headers = [
    formatAddressField("From", [from]),
    formatAddressField("To", to),
    formatSubject(msg.Subject),
    `Date: ${formatDate((options.clock ?? systemClock).now())}`,
    `Message-ID: ${messageId}`,
    "MIME-Version: 1.0",
  ];
  for (const [name, value] of Object.entries(msg.Headers ?? {})) headers.push(formatCustomHeader(name, value));
  // A single part's own Content-Type and Content-Transfer-Encoding close the top-level header block.
  let body: string;
  if (msg.HTML === undefined) {
    body = bodyPart("text/plain", msg.Text);
  } else {
    const boundary = `=_${hex(random, 16)}`;
    // RFC 5322 §2.1.1: on one line it would be 82 characters; folded before the parameter (§2.2.3).
    headers.push(`Content-Type: multipart/alternative;\r\n boundary="${boundary}"`);
    body =
      `\r\n--${boundary}\r\n${bodyPart("text/plain", msg.Text)}` +
      `--${boundary}\r\n${bodyPart("text/html", msg.HTML)}` +
      `--${boundary}--\r\n`;
  }
  return { from: from.address, recipients: to.map((m) => m.address), messageId, data: headers.join("\r\n") + "\r\n" + body };
}

/**
 * Builds the RFC 5322 text of `msg` (see `composeMessage` for what it throws).
 *
 * @example
 * const text = buildMessage({ From: "app@example.com", To: "ada@example.com", Subject: "Hi", Text: "Hello" });
 */
export function buildMessage(msg: Message, options: BuildOptions = {}): string {
  return composeMessage(msg, options).data;
}
