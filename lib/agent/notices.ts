/*
 * Waiting-call notices (README "Waiting calls"): a call waiting for its person longer than `WAITING_NOTICE_AFTER`
 * sends them one mail, at most one each `WAITING_NOTICE_INTERVAL`. The mail names each waiting call's agent and tool
 * and links to the approvals list; never the arguments' values, never a token (the decision stays on the page, behind
 * a fresh session). The time of each person's last notice is their row in `agent_approval_notices`.
 */
import { requireTables, type DB, type Statement } from "../db/index.ts";
import { NewRef, newLogger, systemClock, type Clock, type Logger } from "../http/index.ts";
import { BaseCatalogs, interpolate, type Catalog } from "../i18n/index.ts";
import type { Mailer, Message } from "../mail/index.ts";
import { APPROVAL_TTL } from "./approvals.ts";
import { immediately } from "../internal/index.ts";

/** How long a call waits for its person before they are mailed: 2 minutes, well inside `APPROVAL_TTL` (5). */
export const WAITING_NOTICE_AFTER: number = 2 * 60 * 1000;

/** The least time between two waiting-call mails to one person: 1 hour (an agent asking all day sends 8 a day, not 200). */
export const WAITING_NOTICE_INTERVAL: number = 60 * 60 * 1000;

/** One waiting call as the mail names it. */
export interface WaitingCall {
  /** The agent in audit form, `agent:<token name>`. */
  Agent: string;
  Tool: string;
}

/** Configuration of `WaitingNotices`. */
export interface WaitingNoticesConfig {
  /** The database handle (the agent `Schema` holds the tables). */
  DB: DB;
  Mailer: Mailer;
  /** Sender address of the mails. */
  MailFrom: string;
  /** The application's origin; the mail links to `ApprovalsPath` there. */
  Origin: string;
  /** The list of the person's waiting calls. @default "/account/approvals" */
  ApprovalsPath?: string;
  /** The locale a person is mailed in (a shipped catalog's code; others fall back to English). @default () => "en" */
  Locale?: (subject: string) => string;
  /** @default systemClock */
  Clock?: Clock;
  /** @default newLogger() */
  Logger?: Logger;
}

/** The waiting-call mail to `to`, in `catalog`'s words (lib/i18n's shipped catalogs, keys `mail.waiting.*`). */
export function waitingMessage(catalog: Catalog, m: { from: string; to: string; calls: readonly WaitingCall[]; link: string }): Message {
  const t = (key: string, args: Record<string, string | number> = {}): string => interpolate(catalog[key] ?? key, args);
  const calls = m.calls.map((call) => t("mail.waiting.call", { agent: call.Agent, tool: call.Tool }));
  const text = [t("mail.waiting.body"), calls.join("\n"), t("mail.waiting.decide", { link: m.link, minutes: APPROVAL_TTL / 60_000 })];
  return { From: m.from, To: m.to, Subject: t("mail.waiting.subject"), Text: text.join("\n\n") + "\n" };
}

type Overdue = { subject: string; agent: string; tool: string };

/** Mails people whose agents' calls wait: call `sweep` every minute or so (the mail goes that much after `WAITING_NOTICE_AFTER`). */
export class WaitingNotices {
  readonly #config: WaitingNoticesConfig;
  readonly #db: DB;
  readonly #clock: Clock;
  readonly #catalogs: Map<string, Catalog> = BaseCatalogs();
  readonly #overdue: Statement<{ now: number; waited: number; noticed: number }, Overdue>;
  readonly #noticed: Statement<[string, number]>;

  constructor(config: WaitingNoticesConfig) {
    requireTables(config.DB, "waiting-call notices", "agent.Schema", ["agent_approvals", "agent_approval_notices"]);
    this.#config = config;
    this.#db = config.DB;
    this.#clock = config.Clock ?? systemClock;
    // Calls still pending, asked WAITING_NOTICE_AFTER ago or longer, of people not mailed within the interval.
    this.#overdue = config.DB.prepare(
      `SELECT a.subject AS subject, 'agent:' || t.name AS agent, a.tool AS tool
       FROM agent_approvals a JOIN agent_tokens t ON t.id = a.token_id
       WHERE a.status = 'pending' AND a.expires_at > @now AND a.created_at <= @waited
         AND NOT EXISTS (SELECT 1 FROM agent_approval_notices n WHERE n.subject = a.subject AND n.noticed_at > @noticed)
       ORDER BY a.subject, a.created_at, a.rowid`,
    );
    this.#noticed = config.DB.prepare(
      "INSERT INTO agent_approval_notices (subject, noticed_at) VALUES (?, ?) ON CONFLICT (subject) DO UPDATE SET noticed_at = excluded.noticed_at",
    );
  }

  /**
   * Mails each person with a call waiting longer than `WAITING_NOTICE_AFTER` and no mail within
   * `WAITING_NOTICE_INTERVAL`, and returns how many were mailed. Each is recorded as noticed before it is sent (in one
   * transaction with the query, so two sweeps never both mail): a failed send is logged and not retried within the hour.
   */
  async sweep(): Promise<number> {
    const now = this.#clock.now().getTime();
    const due = immediately(this.#db, () => {
      const byPerson = new Map<string, Overdue[]>();
      for (const row of this.#overdue.all({ now, waited: now - WAITING_NOTICE_AFTER, noticed: now - WAITING_NOTICE_INTERVAL })) {
        byPerson.set(row.subject, [...(byPerson.get(row.subject) ?? []), row]);
      }
      for (const subject of byPerson.keys()) this.#noticed.run(subject, now);
      return byPerson;
    });
    for (const [subject, rows] of due) await this.#send(subject, rows);
    return due.size;
  }

  async #send(subject: string, rows: readonly Overdue[]): Promise<void> {
    const { Origin, ApprovalsPath, MailFrom, Mailer, Locale } = this.#config;
    const catalog = this.#catalogs.get(Locale?.(subject) ?? "en") ?? this.#catalogs.get("en") ?? {};
    // One line per agent and tool: twenty calls of one tool are one line.
    const calls = [...new Map(rows.map((r) => [`${r.agent} ${r.tool}`, { Agent: r.agent, Tool: r.tool }])).values()];
    const link = new URL(ApprovalsPath ?? "/account/approvals", Origin).toString();
    try {
      await Mailer.Send(waitingMessage(catalog, { from: MailFrom, to: subject, calls, link }));
    } catch (err) {
      // Logged, never thrown: the calls still wait on the page; the address is not logged.
      (this.#config.Logger ?? newLogger()).error("waiting-call notice not sent", {
        ref: NewRef(),
        error: err instanceof Error ? err.message : String(err),
      });
    }
  }
}
