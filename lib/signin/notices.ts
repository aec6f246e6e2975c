/*
 * Security notices (OWASP ASVS 5.0 §6.3.7: notify a person after updates to their authentication
 * details), written to the `signin_notices` outbox inside the change's transaction and mailed once it
 * is over; never a token, code, link or cookie in one (README "Security notices").
 */
import { createHash } from "node:crypto";
import type { IncomingMessage } from "node:http";
import { requireTables, type DB } from "../db/index.ts";
import { NewRef, newLogger, type Logger } from "../http/index.ts";
import { BaseCatalogs, BaseLocales, LocaleFrom, interpolate, type Catalog } from "../i18n/index.ts";
import type { Mailer, Message } from "../mail/index.ts";
import { describeUserAgent, type AuthEvent, type AuthEventKind, type AuthEventSink } from "../session/index.ts";
import { immediately } from "../internal/index.ts";

/** Every kind of security notice. */
export const NOTICE_KINDS = [
  "new_device",
  "passkey_added",
  "passkey_removed",
  "recovery_codes_regenerated",
  "recovery_code_used",
  "agent_write_granted",
  "address_changed",
] as const;

/** The kind of a security notice. */
export type NoticeKind = (typeof NOTICE_KINDS)[number];

/** How many devices are remembered per person; the least recently seen goes first. */
export const MAX_KNOWN_DEVICES: number = 20;

/** The auth events that are a notice of their own. */
const NOTICE_OF: Partial<Record<AuthEventKind, NoticeKind>> = {
  passkey_added: "passkey_added",
  passkey_removed: "passkey_removed",
  recovery_codes_regenerated: "recovery_codes_regenerated",
  recovery_code_used: "recovery_code_used",
  // lib/account reports the move under the new address; the old address gets its own notice, with the reversal link.
  address_changed: "address_changed",
};

/** What `Audited` reads of a stored event (lib/events `Event`). */
export interface AuditedEvent {
  Type: string;
  Subject: string;
  Data: Readonly<Record<string, unknown>>;
  At: Date;
}

/** Configuration of `securityNotices`. */
export interface NoticesConfig {
  /** The database handle (the sign-in `Schema` holds the notice tables). */
  DB: DB;
  /** Sends the notices. */
  Mailer: Mailer;
  /** Sender address of the notices. */
  MailFrom: string;
  /** The application's origin; the notices link to `SecurityPath` there. */
  Origin: string;
  /** Where a person reviews their sessions and passkeys. @default "/account/security" */
  SecurityPath?: string;
  /** Kinds not sent. @default none: every kind is sent */
  Off?: readonly NoticeKind[];
  /** @default newLogger() */
  Logger?: Logger;
}

interface Pending {
  id: number;
  subject: string;
  kind: NoticeKind;
  at: number;
  device: string;
  locale: string;
  name: string;
}

/** Creates the security notices of `config`. */
export function securityNotices(config: NoticesConfig): SecurityNotices {
  return new SecurityNotices(config);
}

/** Security notices: hand `Sink` to the components' `OnAuthEvent` and `Audited` to the event store's `OnAppend`. */
export class SecurityNotices {
  readonly #db: DB;
  readonly #config: NoticesConfig;
  readonly #off: ReadonlySet<NoticeKind>;
  readonly #logger: Logger;
  readonly #catalogs: Map<string, Catalog> = BaseCatalogs();
  readonly #sql;
  #sending: Promise<void> = Promise.resolve();

  constructor(config: NoticesConfig) {
    requireTables(config.DB, "security notices", "signin.Schema", ["signin_notices", "signin_notice_devices"]);
    this.#db = config.DB;
    this.#config = config;
    this.#off = new Set(config.Off ?? []);
    this.#logger = config.Logger ?? newLogger();
    const db = config.DB;
    this.#sql = {
      queue: db.prepare<Omit<Pending, "id">>(
        "INSERT INTO signin_notices (subject, kind, at, device, locale, name) VALUES (@subject, @kind, @at, @device, @locale, @name)",
      ),
      pending: db.prepare<[], Pending>("SELECT * FROM signin_notices ORDER BY id"),
      sent: db.prepare<[number]>("DELETE FROM signin_notices WHERE id = ?"),
      known: db.prepare<[string], { device_hash: string; locale: string }>(
        "SELECT device_hash, locale FROM signin_notice_devices WHERE subject = ? ORDER BY last_seen DESC",
      ),
      seen: db.prepare<{ subject: string; device_hash: string; now: number; locale: string }>(
        `INSERT INTO signin_notice_devices (subject, device_hash, first_seen, last_seen, locale) VALUES (@subject, @device_hash, @now, @now, @locale)
ON CONFLICT (subject, device_hash) DO UPDATE SET last_seen = @now, locale = @locale`,
      ),
      forget: db.prepare<[string, string, number]>(
        `DELETE FROM signin_notice_devices WHERE subject = ? AND device_hash IN
(SELECT device_hash FROM signin_notice_devices WHERE subject = ? ORDER BY last_seen DESC LIMIT -1 OFFSET ?)`,
      ),
    };
    // Notices a stopped process queued and never sent go now.
    this.#schedule();
  }

  /** The auth event sink (`OnAuthEvent` of sign-in and passkey): new devices, passkeys, recovery codes, a changed address. */
  readonly Sink: AuthEventSink = (event, req) => {
    const subject = event.Subject;
    if (subject === undefined || subject === "") return;
    const device = describeUserAgent(req?.headers["user-agent"]);
    if (event.Kind === "signed_in") return this.#signedIn(event, subject, device, req);
    const kind = NOTICE_OF[event.Kind];
    if (kind !== undefined) this.#enqueue(kind, subject, event.At, device, this.#localeOf(subject, req), "");
  };

  /** The event store's `OnAppend` (lib/events): an agent token minted with write access, which reaches no auth event sink. */
  readonly Audited = (event: AuditedEvent): void => {
    const { Type, Subject, Data, At } = event;
    if (Type === "agent.token_minted" && Data["access"] === "write") {
      const name = typeof Data["name"] === "string" ? Data["name"] : "";
      this.#enqueue("agent_write_granted", Subject, At, "", this.#localeOf(Subject, undefined), name);
    }
  };

  /** Resolves once every notice queued so far has been sent or its failure logged (tests, shutdown). */
  Flush(): Promise<void> {
    return this.#sending;
  }

  // A device is its description ("Firefox on Linux"), kept as a hash: the
  // notice needs only "seen before", and sessions already show the words.
  #signedIn(event: AuthEvent, subject: string, device: string, req: IncomingMessage | undefined): void {
    const hash = createHash("sha256").update(device).digest("base64url");
    const known = this.#sql.known.all(subject);
    // The owner's language, not the new device's: whoever signed in there may not be them.
    if (known.length > 0 && !known.some((row) => row.device_hash === hash)) {
      this.#enqueue("new_device", subject, event.At, device, this.#localeOf(subject, undefined), "");
    }
    this.#sql.seen.run({ subject, device_hash: hash, now: event.At.getTime(), locale: this.#localeOf(subject, req) });
    this.#sql.forget.run(subject, subject, MAX_KNOWN_DEVICES);
  }

  // The locale of the request, else of the device the person signed in from last, else English.
  #localeOf(subject: string, req: IncomingMessage | undefined): string {
    if (req !== undefined) return LocaleFrom(req);
    return this.#sql.known.all(subject)[0]?.locale ?? "en";
  }

  #enqueue(kind: NoticeKind, subject: string, at: Date, device: string, locale: string, name: string): void {
    if (this.#off.has(kind)) return;
    this.#sql.queue.run({ subject, kind, at: at.getTime(), device, locale, name });
    this.#schedule();
  }

  // A promise callback runs once the synchronous transaction the row was
  // written in is over: it committed, or the row is gone with it.
  #schedule(): void {
    this.#sending = this.#sending.then(() => this.#drain());
  }

  async #drain(): Promise<void> {
    let taken: Pending[] = [];
    try {
      // Taken and deleted in one transaction: of two drains, one sends each notice.
      taken = immediately(this.#db, () => {
        const rows = this.#sql.pending.all();
        for (const row of rows) this.#sql.sent.run(row.id);
        return rows;
      });
    } catch (err) {
      this.#failed("outbox", err);
    }
    for (const row of taken) {
      try {
        await this.#config.Mailer.Send(this.#message(row));
      } catch (err) {
        this.#failed(row.kind, err);
      }
    }
  }

  // Logged, never thrown: the change the notice tells about has happened.
  #failed(notice: string, err: unknown): void {
    this.#logger.error("security notice not sent", { ref: NewRef(), notice, error: err instanceof Error ? err.message : String(err) });
  }

  #message(row: Pending): Message {
    const catalog = this.#catalogs.get(shippedLocale(row.locale));
    const t = (key: string, args: Record<string, string> = {}): string =>
      interpolate(catalog?.[key] ?? this.#catalogs.get("en")?.[key] ?? key, args);
    const when = new Date(row.at).toISOString().slice(0, 16).replace("T", " ") + " UTC";
    const device = row.device === "" ? t("mail.notice.device_unknown") : row.device;
    const link = new URL(this.#config.SecurityPath ?? "/account/security", this.#config.Origin).toString();
    const lines = [
      t(`mail.notice.${row.kind}.body`, { name: row.name, address: row.subject }),
      t("mail.notice.when", { when }),
      ...(row.kind === "agent_write_granted" || row.kind === "address_changed" ? [] : [t("mail.notice.device", { device })]),
      t("mail.notice.not_you", { link }),
    ];
    return { From: this.#config.MailFrom, To: row.subject, Subject: t(`mail.notice.${row.kind}.subject`), Text: lines.join("\n\n") + "\n" };
  }
}

// The shipped catalog for `locale`: the same code, else the same language ("fr-CA" -> "fr"), else English.
function shippedLocale(locale: string): string {
  const shipped = BaseLocales();
  const language = locale.split("-")[0];
  return shipped.includes(locale) ? locale : (shipped.find((code) => code.split("-")[0] === language) ?? "en");
}
