/*
 * The mails an operator's action sends the person (suspended, reactivated, passkeys reset), in the person's language:
 * sign-in's record of the device they signed in from last, else English. Sent once the action has committed; a failed
 * send is logged with a reference and reported to the operator's page, never thrown (the action has happened).
 */
import { NewRef, type Logger } from "../http/index.ts";
import { BaseCatalogs, interpolate, type Catalog } from "../i18n/index.ts";
import type { Mailer, Message } from "../mail/index.ts";

/** What a notice tells the person. */
export type NoticeKind = "suspended" | "reactivated" | "passkeys_reset";

/** Builds and sends the operators' notices. */
export class OperatorNotices {
  readonly #catalogs: Map<string, Catalog> = BaseCatalogs();
  readonly #mailer: Mailer;
  readonly #from: string;
  readonly #origin: string;
  readonly #logger: Logger;

  constructor(mailer: Mailer, from: string, origin: string, logger: Logger) {
    this.#mailer = mailer;
    this.#from = from;
    this.#origin = origin;
    this.#logger = logger;
  }

  /** The notice of `kind` to `subject` in `locale` (a shipped catalog, else English). */
  message(kind: NoticeKind, subject: string, locale: string, reason: string): Message {
    const catalog = this.#catalogs.get(locale) ?? this.#catalogs.get("en");
    const t = (key: string, args: Record<string, string> = {}): string => interpolate(catalog?.[key] ?? key, args);
    const lines = [t(`mail.operator.${kind}.body`, { address: subject, origin: this.#origin })];
    if (reason !== "") lines.push(t("mail.operator.reason", { reason }));
    return { From: this.#from, To: subject, Subject: t(`mail.operator.${kind}.subject`), Text: lines.join("\n\n") + "\n" };
  }

  /** Sends the notice; false (logged at error with a reference) when the mail server refused it. */
  async send(kind: NoticeKind, subject: string, locale: string, reason: string): Promise<boolean> {
    try {
      await this.#mailer.Send(this.message(kind, subject, locale, reason));
      return true;
    } catch (err) {
      this.#logger.error("operator notice not sent", { ref: NewRef(), notice: kind, error: err });
      return false;
    }
  }
}
