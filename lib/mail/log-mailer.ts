/*
 * The development sender used when no `Mailer` is configured (SPEC.md §2.6): the one place latch logs an
 * emailed link (docs/design.md §5), which is why every line says the mail was not delivered.
 */
import type { Logger } from "../http/index.ts";
import { composeMessage } from "./build.ts";
import { MailError } from "./errors.ts";
import type { Mailer, Message } from "./types.ts";

/** The message of the warning line `newLogMailer` writes on every send. */
export const LOG_MAILER_WARNING = "mail: development mailer, message NOT delivered; configure a Mailer for production";

/** Creates a mailer that delivers nothing: each `Send` checks the message as SMTP would, then logs one WARN line (To, Subject, Text). */
export function newLogMailer(logger: Logger): Mailer {
  return {
    async Send(msg: Message, signal?: AbortSignal): Promise<void> {
      if (signal?.aborted === true) {
        throw new MailError("ERR_MAIL_ABORTED", "mail: send aborted", { cause: signal.reason, transient: false });
      }
      const composed = composeMessage(msg);
      logger.warn(LOG_MAILER_WARNING, { to: composed.recipients, subject: msg.Subject, text: msg.Text });
    },
  };
}
