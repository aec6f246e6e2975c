/*
 * What an operator does to a person, each in one transaction with its two audit events (the operator's stream and the
 * person's, actor "human", the data naming the other party): suspend, reactivate, end access, reset passkeys. A
 * suspension ends every session (`Sessions.RevokeAll`, with its hooks: wired agent tokens end too) and everything the
 * `Rows` modules end (`endAccess`: agent tokens and OAuth grants revoked, approvals declined), so none outlives it.
 */
import type { AccountRows, DB, Statement } from "../db/index.ts";
import type { EventStore } from "../events/index.ts";
import type { Clock } from "../http/index.ts";
import type { Session, Sessions } from "../session/index.ts";
import { immediately } from "../internal/index.ts";

/** A person's suspension, as stored. */
export interface Suspension {
  Reason: string;
  /** The operator who suspended. */
  Operator: string;
  At: Date;
}

/** The event types operator actions append, on both streams. */
export const OPERATOR_EVENTS = {
  suspended: "operator.suspended",
  reactivated: "operator.reactivated",
  accessEnded: "operator.access_ended",
  passkeysReset: "operator.passkeys_reset",
  everyoneEnded: "operator.everyone_ended",
  auditExported: "operator.audit_exported",
} as const;

// The contract's actor stays "human" (SPEC §6.2): the operator is a person; the event's data names them.
const HUMAN = { String: (): string => "human" };

/** The suspension store and the actions' transactions. */
export class Actions {
  readonly #db: DB;
  readonly #sessions: Sessions;
  readonly #events: EventStore;
  readonly #rows: readonly AccountRows[];
  readonly #passkeys: AccountRows;
  readonly #clock: Clock;
  readonly #sql: {
    get: Statement<[string], { reason: string; operator: string; suspended_at: number }>;
    put: Statement<[string, string, string, number]>;
    drop: Statement<[string]>;
  };

  constructor(db: DB, sessions: Sessions, events: EventStore, rows: readonly AccountRows[], passkeys: AccountRows, clock: Clock) {
    this.#db = db;
    this.#sessions = sessions;
    this.#events = events;
    // Passkey's rows end a half-finished passkey sign-in too: none is finished after a suspension or an incident.
    this.#rows = [...rows, passkeys];
    this.#passkeys = passkeys;
    this.#clock = clock;
    this.#sql = {
      get: db.prepare("SELECT reason, operator, suspended_at FROM operator_suspensions WHERE subject = ?"),
      put: db.prepare("INSERT OR REPLACE INTO operator_suspensions (subject, reason, operator, suspended_at) VALUES (?, ?, ?, ?)"),
      drop: db.prepare("DELETE FROM operator_suspensions WHERE subject = ?"),
    };
  }

  /** The person's suspension, or undefined. */
  suspension(subject: string): Suspension | undefined {
    const row = this.#sql.get.get(subject);
    return row === undefined ? undefined : { Reason: row.reason, Operator: row.operator, At: new Date(row.suspended_at) };
  }

  /** Records `type` on the operator's stream (data: the person) and the person's (data: the operator). */
  record(operator: string, subject: string, type: string, data: Record<string, unknown>): void {
    this.#events.appendAudit({ Subject: operator, Actor: HUMAN, Type: type, Data: { subject, ...data } });
    if (subject !== operator) this.#events.appendAudit({ Subject: subject, Actor: HUMAN, Type: type, Data: { operator, ...data } });
  }

  /** Records `type` on both streams in one transaction (an action that changes nothing else: an audit export). */
  recordBoth(operator: string, subject: string, type: string): void {
    immediately(this.#db, () => this.record(operator, subject, type, {}));
  }

  // Every session, then what the other modules end (tokens, grants, approvals): how many of each.
  #endAccess(subject: string): { sessions: number; access: number } {
    const sessions = this.#sessions.RevokeAll(subject);
    const access = this.#rows.reduce((n, rows) => n + (rows.endAccess?.(subject, this.#clock.now().getTime()) ?? 0), 0);
    return { sessions, access };
  }

  /** Suspends `subject` and ends all their access, with both audit events, in one transaction. */
  suspend(operator: string, subject: string, reason: string): void {
    immediately(this.#db, () => {
      this.#sql.put.run(subject, reason, operator, this.#clock.now().getTime());
      this.record(operator, subject, OPERATOR_EVENTS.suspended, { reason, ...this.#endAccess(subject) });
    });
  }

  /** Lifts `subject`'s suspension; false when there was none (nothing recorded). */
  reactivate(operator: string, subject: string, reason: string): boolean {
    return immediately(this.#db, () => {
      if (this.#sql.drop.run(subject).changes === 0) return false;
      this.record(operator, subject, OPERATOR_EVENTS.reactivated, { reason });
      return true;
    });
  }

  /** Ends `subject`'s sessions, agent tokens, OAuth grants and approvals (no suspension). */
  endAccess(operator: string, subject: string): void {
    immediately(this.#db, () => this.record(operator, subject, OPERATOR_EVENTS.accessEnded, this.#endAccess(subject)));
  }

  /**
   * An incident: ends every person's sessions (but `keep`, the operator's own), agent tokens, OAuth grants and approvals,
   * each module through its own door (`Sessions.RevokeEveryone`, `AccountRows.endEveryone`), in one transaction with
   * one event on the operator's stream (one per person would be a write per account; the counts say what ended).
   */
  endEveryone(keep: Session): { sessions: number; access: number } {
    return immediately(this.#db, () => {
      const sessions = this.#sessions.RevokeEveryone(keep);
      const access = this.#rows.reduce((n, rows) => n + (rows.endEveryone?.(this.#clock.now().getTime()) ?? 0), 0);
      this.#events.appendAudit({ Subject: keep.Subject, Actor: HUMAN, Type: OPERATOR_EVENTS.everyoneEnded, Data: { sessions, access } });
      return { sessions, access };
    });
  }

  /** Deletes `subject`'s passkeys, recovery codes and user handle, and ends their sessions: they enrol again. */
  resetPasskeys(operator: string, subject: string): void {
    immediately(this.#db, () => {
      this.#passkeys.erase(subject);
      this.record(operator, subject, OPERATOR_EVENTS.passkeysReset, { sessions: this.#sessions.RevokeAll(subject) });
    });
  }
}
