/* The two shapes every sender shares (`newSMTPMailer`, `newLogMailer`, or an application's own `Mailer`). */

/** An email to send: one text body, optionally an HTML alternative. */
export interface Message {
  /** Sender mailbox: "addr@example.com" or "Name <addr@example.com>". */
  From: string;
  /** One or more recipient mailboxes, in the same forms as `From`. */
  To: string[] | string;
  /** Subject line; non-ASCII is RFC 2047 encoded. CR and LF are refused. */
  Subject: string;
  /** The text/plain body. */
  Text: string;
  /** Optional text/html alternative; when set the message is multipart/alternative. */
  HTML?: string;
  /** Extra header fields (printable ASCII values; CR/LF refused; builder-owned names refused). */
  Headers?: Record<string, string>;
}

/** Something that sends `Message`s. */
export interface Mailer {
  /**
   * Sends `msg`, resolving once the server accepted it. Rejects with a
   * `MailError`; aborting `signal` rejects with `ERR_MAIL_ABORTED`.
   */
  Send(msg: Message, signal?: AbortSignal): Promise<void>;
}
