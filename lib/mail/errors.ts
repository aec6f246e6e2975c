/*
 * Errors of the mail module: `transient` says whether the same message may succeed later (RFC 5321
 * §4.2.1: 4yz transient, 5yz permanent; timeouts and refused connections transient too). Messages never
 * carry the password or AUTH payloads; `command` is the SMTP verb alone.
 */
import { LatchError } from "../http/index.ts";
import { hasErrorCode } from "../internal/index.ts";

/** The codes thrown by the mail module, each equal to its key. */
export const MAIL_ERROR_CODES = {
  ERR_MAIL_INVALID_URL: "ERR_MAIL_INVALID_URL",
  ERR_MAIL_INVALID_OPTIONS: "ERR_MAIL_INVALID_OPTIONS",
  ERR_MAIL_CONNECT: "ERR_MAIL_CONNECT",
  ERR_MAIL_TIMEOUT: "ERR_MAIL_TIMEOUT",
  ERR_MAIL_ABORTED: "ERR_MAIL_ABORTED",
  ERR_MAIL_TLS_REQUIRED: "ERR_MAIL_TLS_REQUIRED",
  ERR_MAIL_AUTH: "ERR_MAIL_AUTH",
  ERR_MAIL_TRANSIENT: "ERR_MAIL_TRANSIENT",
  ERR_MAIL_PERMANENT: "ERR_MAIL_PERMANENT",
  ERR_MAIL_PROTOCOL: "ERR_MAIL_PROTOCOL",
  ERR_MAIL_HEADER_INJECTION: "ERR_MAIL_HEADER_INJECTION",
  ERR_MAIL_INVALID_HEADER: "ERR_MAIL_INVALID_HEADER",
  ERR_MAIL_INVALID_ADDRESS: "ERR_MAIL_INVALID_ADDRESS",
} as const;

/** A mail error code. */
export type MailErrorCode = keyof typeof MAIL_ERROR_CODES;

/** Options accepted by `MailError`. */
export interface MailErrorOptions {
  /** The SMTP reply code that caused the error, if any. */
  replyCode?: number;
  /** The SMTP verb that was answered ("MAIL", "RCPT", "DATA"...), never its argument. */
  command?: string;
  /** Whether retrying later may succeed. @default true for 4xx replies, timeouts and connect failures */
  transient?: boolean;
  /** The underlying error. */
  cause?: unknown;
}

const TRANSIENT_CODES: ReadonlySet<MailErrorCode> = new Set<MailErrorCode>(["ERR_MAIL_CONNECT", "ERR_MAIL_TIMEOUT", "ERR_MAIL_TRANSIENT"]);

/** An error from building or sending mail. */
export class MailError extends LatchError<MailErrorCode> {
  override name: string = "MailError";
  /** The SMTP reply code, when a server reply caused the error. */
  readonly replyCode: number | undefined;
  /** The SMTP verb whose reply caused the error, when there was one. */
  readonly command: string | undefined;
  /** Reports whether sending the same message later may succeed. */
  readonly transient: boolean;

  constructor(code: MailErrorCode, message: string, options: MailErrorOptions = {}) {
    super(code, message, options.cause === undefined ? {} : { cause: options.cause });
    this.replyCode = options.replyCode;
    this.command = options.command;
    this.transient =
      options.transient ??
      (options.replyCode === undefined ? TRANSIENT_CODES.has(code) : options.replyCode >= 400 && options.replyCode < 500);
  }
}

/** Reports whether `e` is a mail error, by its code (vendored copies of latch recognise each other). */
export function isMailError(e: unknown): e is MailError {
  return hasErrorCode(e, MAIL_ERROR_CODES);
}
