/*
 * Mailboxes for `From` and `To`: "ada@example.com" or "Ada <ada@example.com>" (RFC 5322 §3.4), only the
 * unambiguous subset (dot-atom local part, ASCII hostname, no SMTPUTF8): anything else is refused rather
 * than guessed at, because the address is copied into the SMTP envelope.
 */
import { MailError } from "./errors.ts";

/** A parsed mailbox. */
export interface Mailbox {
  /** The display name, unquoted; empty when there is none. */
  name: string;
  /** The addr-spec, as used in the SMTP envelope. */
  address: string;
}

// RFC 5322 §3.2.3 atext, as a dot-atom (§3.4.1 local-part).
const LOCAL = /^[A-Za-z0-9!#$%&'*+\-/=?^_`{|}~]+(?:\.[A-Za-z0-9!#$%&'*+\-/=?^_`{|}~]+)*$/;
const LABEL = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/;

/** Reports whether `domain` is a dotted ASCII hostname (RFC 1035 §2.3.1 labels, 1-63 chars each). */
export function isHostname(domain: string): boolean {
  return domain.length > 0 && domain.length <= 253 && domain.split(".").every((l) => LABEL.test(l));
}

function invalid(reason: string): MailError {
  return new MailError("ERR_MAIL_INVALID_ADDRESS", `mail: invalid address: ${reason}`);
}

/**
 * Checks an addr-spec and returns it. Throws `ERR_MAIL_INVALID_ADDRESS` for
 * anything outside the accepted subset (see the file comment).
 */
export function checkAddrSpec(address: string): string {
  const at = address.lastIndexOf("@");
  if (at <= 0) throw invalid("missing local part or @");
  const local = address.slice(0, at);
  const domain = address.slice(at + 1);
  // RFC 5321 §4.5.3.1.1 and §4.5.3.1.3: local part at most 64 octets, path at most 256.
  if (local.length > 64 || address.length > 254) throw invalid("too long");
  if (!LOCAL.test(local)) throw invalid("local part must be a dot-atom");
  if (!isHostname(domain)) throw invalid("domain must be an ASCII hostname");
  return address;
}

/**
 * Parses "addr" or "Display Name <addr>". Throws `ERR_MAIL_HEADER_INJECTION`
 * when the text holds CR or LF and `ERR_MAIL_INVALID_ADDRESS` when it is not
 * a mailbox of the accepted form.
 */
export function parseAddress(text: string): Mailbox {
  // RFC 5322 §2.2: a header field body must not contain a bare CR or LF; refuse
  // them so a caller-supplied address cannot add header fields.
  if (/[\r\n]/.test(text)) {
    throw new MailError("ERR_MAIL_HEADER_INJECTION", "mail: address contains CR or LF");
  }
  if (/[\x00-\x1f\x7f]/.test(text)) throw invalid("control character");
  const s = text.trim();
  if (!s.endsWith(">")) {
    if (/[<>\s]/.test(s)) throw invalid("unexpected character");
    return { name: "", address: checkAddrSpec(s) };
  }
  const open = s.lastIndexOf("<");
  if (open < 0) throw invalid("unbalanced angle brackets");
  const address = s.slice(open + 1, -1);
  let name = s.slice(0, open).trim();
  // RFC 5322 §3.4: one angle address per mailbox; a second "<" or ">" could smuggle another.
  if (/[<>]/.test(name) || /[<>\s]/.test(address)) throw invalid("unexpected angle bracket");
  if (name.length >= 2 && name.startsWith('"') && name.endsWith('"')) {
    name = name.slice(1, -1).replace(/\\(.)/g, "$1");
  }
  return { name, address: checkAddrSpec(address) };
}
