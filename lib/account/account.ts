/*
 * The account component (README): a change of address, its reversal, the export and the deletion of an account, each
 * answered with a redirect whose query names the outcome. A change is confirmed with sign-in's own emailed link and
 * code of purpose `PURPOSE_ADDRESS` (never a sign-in link), moves every row in one transaction, and the old address gets
 * a single-use link that reverses it for `ReverseWindow`.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { awaitDurable, sweepInSteps } from "../db/index.ts";
import {
  NewRef,
  newLogger,
  queryParams,
  readForm,
  seeOther,
  systemClock,
  type Clock,
  type HandlerFunc,
  type Logger,
} from "../http/index.ts";
import { LINK_TTL, normalizeAddress, type Signin } from "../signin/index.ts";
import { isPasskeyConfirmed } from "../passkey/index.ts";
import { newLogMailer, type Mailer, type Message } from "../mail/index.ts";
import { HashToken, NewToken, authEventEmitter, type AuthEventEmitter, type Sessions } from "../session/index.ts";
import type { Config } from "./config.ts";
import { admitDownload, MAX_DOWNLOADS_PER_PERSON, immediately } from "../internal/index.ts";
import { AccountError } from "./errors.ts";
import { writeExport } from "./export.ts";
import { changedMessage, confirmMessage, requestedMessage, takenMessage } from "./mail.ts";
import { Records, pseudonym } from "./records.ts";
import { reversalKeys, seal, unseal, type ReversalKeys } from "./seal.ts";

/** The purpose of the emailed links that confirm a change of address (lib/signin `IssueLink`). */
export const PURPOSE_ADDRESS = "account.address";

/** How long the old address can reverse a change: 7 days. */
export const REVERSE_WINDOW: number = 7 * 24 * 60 * 60 * 1000;

/** Changes of address one person may have waiting for confirmation at once: 3. */
export const MAX_PENDING_CHANGES: number = 3;

const DAY = 24 * 60 * 60 * 1000;

/**
 * Creates the account component. Throws `AccountError`
 * ERR_ACCOUNT_INVALID_CONFIG for an empty `InstanceKey` or a path that is
 * not local.
 *
 * @example
 * const account = create({ DB: db, Signin: auth, Passkey: keys, Origin, InstanceKey,
 *   Rows: [manifest.accountRows(db, [expenses])], AccountPath: "/account/security",
 *   SigninPath: "/signin", ConfirmPath: "/account/address/confirm", ReversePath: "/account/address/undo" });
 */
export function create(config: Config): Account {
  return new Account(config);
}

/** The account component: its handlers. */
export class Account {
  readonly #config: Config;
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #mailer: Mailer;
  readonly #sessions: Sessions;
  readonly #signin: Signin;
  readonly #records: Records;
  readonly #sealKeys: ReversalKeys;
  readonly #window: number;
  readonly #emit: AuthEventEmitter;
  readonly #from: string;
  readonly #sql;

  constructor(config: Config) {
    if (typeof config.InstanceKey !== "string" || config.InstanceKey === "") {
      throw new AccountError("ERR_ACCOUNT_INVALID_CONFIG", "account: InstanceKey must not be empty (pass sign-in's)");
    }
    for (const name of ["AccountPath", "SigninPath", "ConfirmPath", "ReversePath"] as const) {
      const path = config[name];
      // RFC 9110 §10.2.2: these go into Location; "//host" leaves the origin.
      if (typeof path !== "string" || !path.startsWith("/") || path.startsWith("//") || path.startsWith("/\\")) {
        throw new AccountError("ERR_ACCOUNT_INVALID_CONFIG", `account: ${name} must be a local path ("/..." but not "//")`);
      }
    }
    this.#config = config;
    this.#clock = config.Clock ?? systemClock;
    this.#logger = config.Logger ?? newLogger();
    this.#mailer = config.Mailer ?? newLogMailer(this.#logger);
    this.#signin = config.Signin;
    this.#sessions = config.Signin.Sessions;
    this.#records = new Records(config.DB, config.Rows ?? [], this.#clock);
    this.#sealKeys = reversalKeys(config.InstanceKey);
    this.#window = config.ReverseWindow ?? REVERSE_WINDOW;
    this.#emit = authEventEmitter(config, this.#clock, this.#logger);
    this.#from = config.MailFrom ?? `no-reply@${new URL(config.Origin).hostname}`;
    const db = config.DB;
    this.#sql = {
      pending: db.prepare<[string, number], { n: number }>(
        "SELECT count(*) AS n FROM account_address_changes WHERE subject = ? AND expires_at > ?",
      ),
      putPending: db.prepare(
        `INSERT INTO account_address_changes (subject, new_address, expires_at) VALUES (?, ?, ?)
         ON CONFLICT (subject, new_address) DO UPDATE SET expires_at = excluded.expires_at`,
      ),
      takePending: db.prepare<[string, string, number], { n: number }>(
        "DELETE FROM account_address_changes WHERE subject = ? AND new_address = ? AND expires_at > ? RETURNING 1 AS n",
      ),
      dropPending: db.prepare("DELETE FROM account_address_changes WHERE subject = ? AND new_address = ?"),
      sweepPending: db.prepare(
        "DELETE FROM account_address_changes WHERE rowid IN (SELECT rowid FROM account_address_changes WHERE expires_at <= ? LIMIT ?)",
      ),
      putReversal: db.prepare("INSERT INTO account_reversals (token_hash, subject, sealed_previous, expires_at) VALUES (?, ?, ?, ?)"),
      findReversal: db.prepare<[string], { subject: string; sealed_previous: string; expires_at: number }>(
        "SELECT subject, sealed_previous, expires_at FROM account_reversals WHERE token_hash = ?",
      ),
      dropReversal: db.prepare("DELETE FROM account_reversals WHERE token_hash = ?"),
      dropReversals: db.prepare("DELETE FROM account_reversals WHERE subject = ?"),
      sweepReversals: db.prepare(
        "DELETE FROM account_reversals WHERE rowid IN (SELECT rowid FROM account_reversals WHERE expires_at <= ? LIMIT ?)",
      ),
    };
  }

  #now(): number {
    return this.#clock.now().getTime();
  }

  // A mail that is not the confirmation itself: its failure is logged with a reference and blocks nothing.
  async #send(message: Message, what: string): Promise<void> {
    try {
      await this.#mailer.Send(message);
    } catch (err) {
      this.#logger.error(`account: sending the ${what} failed`, { ref: NewRef(), error: err });
    }
  }

  #outcome(res: ServerResponse, path: string, query: string): void {
    seeOther(res, `${path}?${query}`);
  }

  /**
   * `POST` (behind RequireFreshSession), form field `email`: asks to move the account there (README, "Change of
   * address"). `?address=sent` whether or not the address is an account; `invalid`, `busy`, `mail` otherwise.
   */
  readonly RequestChange: HandlerFunc = async (req, res) => {
    const session = this.#sessions.read(req);
    if (session === undefined) return this.#outcome(res, this.#config.SigninPath, "account=signin");
    const form = await readForm(req);
    const address = normalizeAddress(form.get("email") ?? "");
    const path = this.#config.AccountPath;
    if (address === undefined || address === session.Subject) return this.#outcome(res, path, "address=invalid");
    const now = this.#now();
    // OWASP ASVS 5.0 §2.4.1: a person cannot flood an inbox with confirmations; a few at once, each LINK_TTL long.
    if ((this.#sql.pending.get(session.Subject, now)?.n ?? 0) >= MAX_PENDING_CHANGES) return this.#outcome(res, path, "address=busy");
    const minutes = Math.round(LINK_TTL / 60000);
    // Whether the address is an account shows in no part of the answer: the same binding cookie, the same
    // place taken among the waiting changes; only the mail at that address says it (a link there never confirms).
    const link = this.#signin.IssueLink(req, res, address, PURPOSE_ADDRESS);
    this.#sql.putPending.run(session.Subject, address, now + LINK_TTL);
    if (this.#records.isAccount(address)) {
      link.revoke();
      await this.#send(takenMessage(req, { from: this.#from, to: address }), "taken-address mail");
    } else {
      const url = `${new URL(this.#config.Origin).origin}${this.#config.ConfirmPath}?token=${link.Token}`;
      try {
        await this.#mailer.Send(confirmMessage(req, { from: this.#from, to: address, link: url, code: link.Code, minutes }));
      } catch (err) {
        link.revoke();
        this.#sql.dropPending.run(session.Subject, address);
        this.#logger.error("account: sending the confirmation failed", { ref: NewRef(), error: err });
        return this.#outcome(res, path, "address=mail");
      }
    }
    await this.#send(requestedMessage(req, { from: this.#from, to: session.Subject, address, minutes }), "notice of a requested change");
    this.#outcome(res, path, "address=sent");
  };

  /** `GET ?token=`: the new address's link, opened in the browser that asked; any other opener spends nothing (`?address=link`). */
  readonly ConfirmLink: HandlerFunc = async (req, res) => {
    // RFC 9110 §9.3.2: HEAD is safe; a mail scanner's probe spends nothing.
    if (req.method === "HEAD") {
      res.setHeader("Cache-Control", "no-store");
      return void res.end();
    }
    const address = this.#signin.SpendLink(req, queryParams(req).get("token") ?? "", PURPOSE_ADDRESS);
    await this.#confirm(req, res, address);
  };

  /** `POST`, form field `code`: the code of the new address's mail, typed in the browser that asked. */
  readonly ConfirmCode: HandlerFunc = async (req, res) => {
    const form = await readForm(req);
    const address = this.#signin.SpendCode(req, form.get("code") ?? "", PURPOSE_ADDRESS);
    await this.#confirm(req, res, address);
  };

  async #confirm(req: IncomingMessage, res: ServerResponse, address: string | undefined): Promise<void> {
    const session = this.#sessions.read(req);
    const path = this.#config.AccountPath;
    if (address === undefined || session === undefined) return this.#outcome(res, path, "address=link");
    const old = session.Subject;
    const token = NewToken();
    const moved = immediately(this.#config.DB, () => {
      // The change this session asked for, still waiting; and the address still no account (it may have become one since).
      if (this.#sql.takePending.get(old, address, this.#now()) === undefined || this.#records.isAccount(address)) return false;
      this.#records.move(old, address);
      // The current session is rotated to a new token under the new address; every other one ends.
      const current = this.#sessions.create(req, res, { Subject: address, Method: session.Method, AuthTime: session.AuthTime });
      const ended = this.#sessions.revokeOthers(current);
      const hash = HashToken(token);
      this.#sql.putReversal.run(hash, address, seal(this.#sealKeys, hash, old), this.#now() + this.#window);
      this.#emit(req, { Kind: "address_changed", Subject: address, Count: ended });
      return true;
    });
    if (!moved) return this.#outcome(res, path, "address=link");
    await awaitDurable(this.#config.DB);
    const link = `${new URL(this.#config.Origin).origin}${this.#config.ReversePath}?token=${token}`;
    const days = Math.round(this.#window / DAY);
    await this.#send(changedMessage(req, { from: this.#from, to: old, address, link, days }), "notice of a changed address");
    this.#outcome(res, path, "address=changed");
  }

  /**
   * `POST`, form field `token`: the old address's single-use link, posted from the page at `ReversePath` (a scanner
   * changes nothing). Moves the account back and ends what acts for either address (README, "Undo");
   * `?account=reversed`, else `?account=reverse_failed`, which spends nothing.
   */
  readonly Reverse: HandlerFunc = async (req, res) => {
    const form = await readForm(req);
    const token = form.get("token") ?? "";
    const signin = this.#config.SigninPath;
    if (!immediately(this.#config.DB, () => this.#reverse(req, token))) return this.#outcome(res, signin, "account=reverse_failed");
    await awaitDurable(this.#config.DB);
    this.#outcome(res, signin, "account=reversed");
  };

  // Inside one transaction: every check first, so a refusal spends nothing; the link is taken only when the undo goes through.
  #reverse(req: IncomingMessage, token: string): boolean {
    if (token === "") return false;
    const hash = HashToken(token);
    const row = this.#sql.findReversal.get(hash);
    if (row === undefined || row.expires_at <= this.#now()) return false;
    const previous = unseal(this.#sealKeys, hash, row.sealed_previous);
    if (previous === undefined) return false;
    this.#sql.dropReversal.run(hash);
    // OWASP ASVS 5.0 §7.4.3 (terminate all active sessions after a change of credentials): whoever changed the address
    // may hold sessions, tokens or grants of either address (minted after the change, or a sign-in at the old one).
    const ended = this.#sessions.RevokeAll(row.subject) + (previous === row.subject ? 0 : this.#sessions.RevokeAll(previous));
    for (const subject of new Set([row.subject, previous])) this.#records.endAccess(subject, this.#now());
    // The old address's inbox received the link, and only its holder can have made an account there since: merged.
    if (previous !== row.subject) this.#records.move(row.subject, previous, true);
    this.#sql.dropReversals.run(previous);
    this.#emit(req, { Kind: "address_change_reversed", Subject: previous, Count: ended });
    return true;
  }

  /** `GET` (behind RequireFreshSession): the person's export as an attachment; ERR_ACCOUNT_DOWNLOADS_BUSY (429) past the limit. */
  readonly Export: HandlerFunc = async (req, res) => {
    const session = this.#sessions.read(req);
    if (session === undefined) return this.#outcome(res, this.#config.SigninPath, "account=signin");
    // OWASP ASVS 5.0 §13.1.3: a person's downloads, exports and CSV together, are bounded; the runtime renders the 429 (Retry-After kept).
    if (!admitDownload(this.#config.DB, session.Subject, res)) {
      throw new AccountError("ERR_ACCOUNT_DOWNLOADS_BUSY", `account export: ${MAX_DOWNLOADS_PER_PERSON} downloads running already`, {
        status: 429,
      });
    }
    res.statusCode = 200;
    res.setHeader("Content-Type", "application/json; charset=utf-8");
    res.setHeader("Content-Disposition", 'attachment; filename="account.json"');
    // RFC 9111 §5.2.2.5: personal data is kept by no cache.
    res.setHeader("Cache-Control", "no-store");
    await writeExport(res, this.#records, session.Subject, this.#clock.now());
  };

  /**
   * `POST` (behind RequireFreshSession), form field `email`: the person's own address, typed to confirm (else
   * `?delete=confirm`); with a passkey, a session confirmed by one (else 303 to `StalePath?next=AccountPath`). Deletes
   * every row of the person in one transaction, ends every session and token; `?account=deleted`. A deletion a module
   * refuses (AccountRows `refuseErasure`) deletes nothing and answers `?delete=<its reason>`.
   */
  readonly Delete: HandlerFunc = async (req, res) => {
    const session = this.#sessions.read(req);
    if (session === undefined) return this.#outcome(res, this.#config.SigninPath, "account=signin");
    const form = await readForm(req);
    const subject = session.Subject;
    if (normalizeAddress(form.get("email") ?? "") !== subject) return this.#outcome(res, this.#config.AccountPath, "delete=confirm");
    const keys = this.#config.Passkey;
    // OWASP ASVS 5.0 §7.5.1: re-authentication before a sensitive change, with the strongest factor the person holds.
    if (keys !== undefined && keys.Credentials(subject).length > 0 && !isPasskeyConfirmed(session)) {
      return seeOther(res, `${this.#config.StalePath ?? this.#config.SigninPath}?next=${encodeURIComponent(this.#config.AccountPath)}`);
    }
    const alias = pseudonym(this.#config.InstanceKey, subject);
    const refused = immediately(this.#config.DB, () => {
      // A module's rows that must not be orphaned (a team's only owner) refuse it; nothing is deleted.
      const reason = this.#records.refusal(subject);
      if (reason !== undefined) return reason;
      const ended = this.#sessions.RevokeAll(subject);
      this.#records.erase(subject, this.#config.OtherEvents ?? "pseudonymize", alias);
      this.#emit(req, { Kind: "account_deleted", Count: ended });
      return undefined;
    });
    if (refused !== undefined) return this.#outcome(res, this.#config.AccountPath, `delete=${refused}`);
    await awaitDurable(this.#config.DB);
    this.#sessions.destroy(req, res);
    this.#outcome(res, this.#config.SigninPath, "account=deleted");
  };

  /** Deletes expired waiting changes and reversal links in `sweepInSteps`' bounded steps; resolves with how many. */
  async Sweep(now: Date): Promise<number> {
    const t = now.getTime();
    const { pending, reversals } = await sweepInSteps(this.#config.DB, {
      pending: (limit) => this.#sql.sweepPending.run(t, limit).changes,
      reversals: (limit) => this.#sql.sweepReversals.run(t, limit).changes,
    });
    return pending + reversals;
  }
}
