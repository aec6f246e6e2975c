/*
 * The operators component (README): who operates the application is configuration; an operator, from a fresh session
 * confirmed by a passkey, finds people, sees what the README lists of them, suspends and reactivates them, ends their
 * access and resets their passkeys. Every action is recorded on both audit streams (actions.ts) and mailed to the person.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { AccountRows } from "../db/index.ts";
import { newLogger, queryParams, readForm, seeOther, systemClock, type HandlerFunc, type Middleware } from "../http/index.ts";
import { writeText } from "../internal/index.ts";
import { newLogMailer } from "../mail/index.ts";
import * as passkey from "../passkey/index.ts";
import * as session from "../session/index.ts";
import * as signin from "../signin/index.ts";
import type { SigninRows } from "../signin/index.ts";
import { auditStream } from "../events/index.ts";
import { Actions, OPERATOR_EVENTS, type Suspension } from "./actions.ts";
import { writeAuditLines } from "./audit.ts";
import { DEFAULT_FRESH_FOR, checkConfig, type Config } from "./config.ts";
import { operatorSession, requireOperator, type GateDeps } from "./gate.ts";
import { OperatorNotices, type NoticeKind } from "./notices.ts";
import { recentEvents, shownTables, type ShownEvent, type ShownTable } from "./person.ts";

/** The longest reason an operator may give, in characters: 500 (a sentence or two; it is mailed to the person). */
export const MAX_REASON: number = 500;

/** How many people one page of a search lists: 25. */
export const PEOPLE_PAGE: number = 25;

/** The word sign-in answers a suspended person's sign-in with: `SigninPath?err=suspended`. */
export const SUSPENDED_REFUSAL = "suspended";

// Sign-in's rows of a person, with what operators read of them (accounts by prefix, a person's language).

/** One page of people whose address starts with a prefix. */
export interface PeoplePage {
  People: ReturnType<SigninRows["find"]>;
  /** The address to ask the next page after, or undefined on the last page. */
  Next: string | undefined;
}

/** What an operator's page shows of one person. */
export interface PersonView {
  Subject: string;
  /** The head of the person's audit stream (`EventStore.head`): its last sequence and hash, in hex. */
  Head: { readonly Seq: number; readonly Hash: string };
  Suspension: Suspension | undefined;
  Tables: ShownTable[];
  Events: ShownEvent[];
}

/** Builds the operators component; throws `OperatorsError` ERR_OPERATORS_INVALID_CONFIG naming a field. */
export function create(config: Config): Operators {
  return new Operators(config);
}

/** The operators component: the gate, the sign-in refusal, the reads of the pages and the actions' handlers. */
export class Operators {
  readonly #gate: GateDeps;
  readonly #actions: Actions;
  readonly #notices: OperatorNotices;
  readonly #signin: SigninRows;
  readonly #shown: readonly AccountRows[];
  readonly #config: Config;

  constructor(config: Config) {
    const operators = checkConfig(config);
    const db = config.DB;
    const clock = config.Clock ?? systemClock;
    const logger = config.Logger ?? newLogger();
    this.#config = config;
    this.#signin = signin.accountRows(db);
    const passkeys = passkey.accountRows(db);
    this.#shown = [this.#signin, session.accountRows(db), passkeys, ...(config.Rows ?? [])];
    this.#gate = {
      operators,
      sessions: config.Sessions,
      origin: config.Origin,
      stalePath: config.StalePath,
      freshFor: config.FreshFor ?? DEFAULT_FRESH_FOR,
      clock,
      notFound: config.NotFound ?? ((_req, res) => writeText(res, 404, "404 page not found")),
    };
    this.#actions = new Actions(db, config.Sessions, config.Events, config.Rows ?? [], passkeys, clock);
    const from = config.MailFrom ?? `no-reply@${new URL(config.Origin).hostname}`;
    this.#notices = new OperatorNotices(config.Mailer ?? newLogMailer(logger), from, config.Origin, logger);
  }

  /** Middleware of every operator route: 404 unless an operator's session; step-up unless fresh and passkey-confirmed. */
  readonly Require: Middleware = (next) => requireOperator(this.#gate)(next);

  /** Whether the request comes from an operator's session (for a navigation link; the routes ask `Require`). */
  isOperator(req: IncomingMessage): boolean {
    return operatorSession(this.#gate, req) !== undefined;
  }

  /** Sign-in's `Authorize`: a suspended address is refused (SPEC §5.3). */
  readonly Authorize = (address: string): boolean => this.#actions.suspension(address) === undefined;

  /** Sign-in's `AuthorizeRefusal`: "suspended" for a suspended address, so the sign-in page says so. */
  readonly AuthorizeRefusal = (address: string): string | undefined =>
    this.#actions.suspension(address) === undefined ? undefined : SUSPENDED_REFUSAL;

  /** One page of people whose address starts with `prefix` (lower-cased, as addresses are stored), after `after`. */
  find(prefix: string, after?: string): PeoplePage {
    const people = this.#signin.find(prefix.trim().toLowerCase(), after, PEOPLE_PAGE + 1);
    const more = people.length > PEOPLE_PAGE;
    return { People: people.slice(0, PEOPLE_PAGE), Next: more ? people[PEOPLE_PAGE - 1]?.Address : undefined };
  }

  /** What the person's page shows (README "What an operator sees"). */
  view(subject: string): PersonView {
    return {
      Subject: subject,
      Head: this.#config.Events.head(auditStream(subject)),
      Suspension: this.#actions.suspension(subject),
      Tables: shownTables(this.#shown, subject),
      Events: recentEvents(this.#config.Events, subject),
    };
  }

  /** Form POST `address`, `reason`: suspends the person, ends all their access, mails them. */
  readonly Suspend: HandlerFunc = (req, res) =>
    this.#act(req, res, true, (operator, subject, reason) => {
      this.#actions.suspend(operator, subject, reason);
      return { done: "suspended", notice: "suspended" };
    });

  /** Form POST `address`, `reason`: lifts the suspension (sign-in works again), mails the person. */
  readonly Reactivate: HandlerFunc = (req, res) =>
    this.#act(req, res, true, (operator, subject, reason) =>
      this.#actions.reactivate(operator, subject, reason) ? { done: "reactivated", notice: "reactivated" } : { done: "not_suspended" },
    );

  /** Form POST `address`: ends the person's sessions, agent tokens, OAuth grants and pending approvals. */
  readonly EndAccess: HandlerFunc = (req, res) =>
    this.#act(req, res, false, (operator, subject) => {
      this.#actions.endAccess(operator, subject);
      return { done: "access_ended" };
    });

  /**
   * What an operator types to confirm ending everyone's access: the application's host (`Origin`'s), so the hand that
   * types it also says which application it means (a production one, not a staging one open in another tab).
   */
  get EveryonePhrase(): string {
    return new URL(this.#config.Origin).host;
  }

  /** Form POST `confirm` (`EveryonePhrase`): ends every person's sessions (but this one), tokens, grants and approvals. */
  readonly EndEveryone: HandlerFunc = async (req, res) => {
    const session = operatorSession(this.#gate, req);
    if (session === undefined) return this.#gate.notFound(req, res);
    const form = await readForm(req);
    // OWASP ASVS 5.0 §7.4.5: ending all users' sessions; only with the phrase typed (issue 41, "confirmed by typing").
    if ((form.get("confirm") ?? "").trim() !== this.EveryonePhrase) {
      return writeText(res, 400, `400 confirm: type ${this.EveryonePhrase} to end everyone's sessions and grants`);
    }
    const { sessions, access } = this.#actions.endEveryone(session);
    seeOther(res, `${this.#config.OperatorsPath}?done=everyone_ended&sessions=${sessions}&access=${access}`);
  };

  /** Form POST `address`: deletes the person's passkeys and recovery codes, ends their sessions, mails them. */
  readonly ResetPasskeys: HandlerFunc = (req, res) =>
    this.#act(req, res, false, (operator, subject) => {
      this.#actions.resetPasskeys(operator, subject);
      return { done: "passkeys_reset", notice: "passkeys_reset" };
    });

  /**
   * `GET ?address=`: the person's audit stream as JSON Lines (README "Reading a person's audit stream"), never their
   * records; the export is itself recorded on both streams first (`operator.audit_exported`), so the file ends with it.
   */
  readonly ExportAudit: HandlerFunc = async (req, res) => {
    const operator = operatorSession(this.#gate, req)?.Subject;
    if (operator === undefined) return this.#gate.notFound(req, res);
    const subject = signin.normalizeAddress(queryParams(req).get("address") ?? "");
    if (subject === undefined || subject === "") return writeText(res, 400, "400 address: an email address is required");
    this.#actions.recordBoth(operator, subject, OPERATOR_EVENTS.auditExported);
    res.statusCode = 200;
    res.setHeader("Content-Type", "application/jsonl; charset=utf-8");
    res.setHeader("Content-Disposition", `attachment; filename="audit.jsonl"`);
    // RFC 9111 §5.2.2.5: a person's audit trail is kept by no cache.
    res.setHeader("Cache-Control", "no-store");
    await writeAuditLines(res, this.#config.Events, auditStream(subject));
  };

  // Reads and checks the form (400 naming the field, nothing written), runs the action, mails, answers 303 to the page.
  async #act(
    req: IncomingMessage,
    res: ServerResponse,
    needsReason: boolean,
    action: (operator: string, subject: string, reason: string) => { done: string; notice?: NoticeKind },
  ): Promise<void> {
    const operator = operatorSession(this.#gate, req)?.Subject;
    if (operator === undefined) return this.#gate.notFound(req, res);
    const form = await readForm(req);
    const subject = signin.normalizeAddress(form.get("address") ?? "");
    if (subject === undefined || subject === "") return writeText(res, 400, "400 address: an email address is required");
    const reason = (form.get("reason") ?? "").trim();
    // OWASP ASVS 5.0 §2.2.1: a reason is mailed and recorded; bounded, and no control characters to forge lines with.
    if (needsReason && (reason === "" || reason.length > MAX_REASON || /[\u0000-\u001f\u007f]/.test(reason))) {
      return writeText(res, 400, `400 reason: 1-${MAX_REASON} characters without control characters are required`);
    }
    const { done, notice } = action(operator, subject, needsReason ? reason : "");
    const mailed = notice === undefined || (await this.#notices.send(notice, subject, this.#signin.localeOf(subject) ?? "en", reason));
    seeOther(
      res,
      `${this.#config.OperatorsPath}/person?address=${encodeURIComponent(subject)}&done=${done}${mailed ? "" : "&mail=failed"}`,
    );
  }
}
