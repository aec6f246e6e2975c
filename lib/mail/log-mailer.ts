/*
 * The development sender used when no `Mailer` is configured (SPEC.md §2.6): the one place latch logs an
 * emailed link (docs/design.md §5), which is why every line says the mail was not delivered.
 */
import type { Logger } from "../http/index.ts";
import { markLogMailer } from "../internal/index.ts";
import { composeMessage } from "./build.ts";
import { MailError } from "./errors.ts";
import type { Mailer, Message } from "./types.ts";

/** The message of the warning line `newLogMailer` writes on every send. */
export const LOG_MAILER_WARNING = "mail: development mailer, message NOT delivered; configure a Mailer for production";

/**
 * The web addresses in a mail's text, in order, each once. The log line carries them in a field of their own,
 * `links`, so a person copies a link whole from a JSON log line too, where the text's line breaks are `\n`
 * escapes (docs/guide.md, step 2). An address ends at white space, a control character, a quote, a backslash
 * or an angle bracket, so its JSON string holds no escape; a sentence's closing punctuation is not part of it.
 */
function linksIn(text: string): string[] {
  const found = (text.match(/https?:\/\/[^\s\x00-\x1f"<>\\]+/g) ?? []).map((url) => url.replace(/[.,;:!?)\]]+$/, ""));
  return [...new Set(found)];
}

/** Creates a mailer that delivers nothing: each `Send` checks the message as SMTP would, then logs one WARN line (To, Subject, the links, Text). */
export function newLogMailer(logger: Logger): Mailer {
  // Marked, so sign-in knows links are read from the log (development: its rate-limit hint).
  return markLogMailer({
    async Send(msg: Message, signal?: AbortSignal): Promise<void> {
      if (signal?.aborted === true) {
        throw new MailError("ERR_MAIL_ABORTED", "mail: send aborted", { cause: signal.reason, transient: false });
      }
      const composed = composeMessage(msg);
      logger.warn(LOG_MAILER_WARNING, { to: composed.recipients, subject: msg.Subject, links: linksIn(msg.Text), text: msg.Text });
    },
  });
}
