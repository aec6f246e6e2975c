/*
 * SMTP replies (RFC 5321 §4.2): one or more lines "NNN-text" ending with
 * "NNN text" (or a bare "NNN"), every line carrying the same code
 * (§4.2.1). Pure functions; the connection feeds them lines.
 */
import { MailError } from "./errors.ts";

/** A complete SMTP reply. */
export interface Reply {
  /** The three-digit reply code. */
  code: number;
  /** The text of each line, without code and separator. */
  lines: string[];
}

/** Most lines accepted in one reply, a safety limit against a hostile server. */
export const MAX_REPLY_LINES = 100;

const LINE = /^([2-5][0-9][0-9])(?:([ -])(.*))?$/s;

function protocol(reason: string): MailError {
  return new MailError("ERR_MAIL_PROTOCOL", `mail: malformed reply: ${reason}`);
}

/** Reports whether `line` ends a reply (its code is followed by a space or nothing). Throws on a malformed line. */
export function isFinalReplyLine(line: string): boolean {
  const m = LINE.exec(line);
  if (m === null) throw protocol("line does not start with a reply code");
  return m[2] !== "-";
}

/** Parses the lines of one complete reply. Throws `ERR_MAIL_PROTOCOL` when they are malformed or disagree on the code. */
export function parseReply(lines: readonly string[]): Reply {
  if (lines.length === 0 || lines.length > MAX_REPLY_LINES) throw protocol("wrong number of lines");
  let code = 0;
  const texts: string[] = [];
  lines.forEach((line, i) => {
    const m = LINE.exec(line);
    if (m === null) throw protocol("line does not start with a reply code");
    const lineCode = Number(m[1]);
    // RFC 5321 §4.2.1: every line of a multiline reply carries the same code.
    if (i > 0 && lineCode !== code) throw protocol("codes differ between lines");
    if ((m[2] === "-") !== i < lines.length - 1) throw protocol("continuation marker out of place");
    code = lineCode;
    texts.push(m[3] ?? "");
  });
  return { code, lines: texts };
}

/**
 * Returns the extensions a 250 EHLO reply advertises (RFC 5321 §4.1.1.1):
 * upper-cased keyword to its parameters. The first line is the greeting.
 */
export function parseEHLO(reply: Reply): Map<string, string[]> {
  const ext = new Map<string, string[]>();
  for (const line of reply.lines.slice(1)) {
    const [keyword, ...params] = line.trim().split(/\s+/);
    if (keyword !== undefined && keyword !== "") ext.set(keyword.toUpperCase(), params);
  }
  return ext;
}

/** Returns the reply text as one line fit for an error message: control characters removed, at most 200 chars. */
export function replyText(reply: Reply): string {
  return reply.lines
    .join(" ")
    .replace(/[\x00-\x1f\x7f]/g, "")
    .slice(0, 200);
}

/** Returns the error for an unexpected `reply` to `command`: 4xx transient, 5xx permanent. */
export function replyError(reply: Reply, command: string): MailError {
  const code = reply.code >= 500 ? "ERR_MAIL_PERMANENT" : reply.code >= 400 ? "ERR_MAIL_TRANSIENT" : "ERR_MAIL_PROTOCOL";
  return new MailError(code, `mail: ${command} refused: ${reply.code} ${replyText(reply)}`.trimEnd(), {
    replyCode: reply.code,
    command,
  });
}
