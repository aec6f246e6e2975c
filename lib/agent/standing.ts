/*
 * Standing approvals (README, Standing approvals): a person who sees one waiting write call approves "calls like this"
 * for at most `STANDING_MAX_CALLS` calls and `STANDING_MAX_TTL`: the same token and tool, the same context (the team),
 * optionally the same record and only the same fields. The invoker spends one call in one UPDATE … RETURNING, in the
 * transaction of the call's "started" event, so no race runs more calls than were granted.
 */
import type { IncomingMessage } from "node:http";
import { requireTables, sweepInSteps, type DB, type Statement } from "../db/index.ts";
import type { EventStore } from "../events/index.ts";
import { cryptoRandom, NewRef, systemClock, type Clock, type Logger, type RandomReader } from "../http/index.ts";
import type { Mailer } from "../mail/index.ts";
import type { CallPreview, CallTarget, ToolDef } from "./action.ts";
import { humanActor } from "./actor.ts";
import type { Approvals } from "./approvals.ts";
import { AgentError } from "./errors.ts";
import { standingNotice } from "./standing-notice.ts";
import type { ArgValue } from "./tool.ts";
import { immediately } from "../internal/index.ts";

/** The most calls one standing approval allows: 20, what one agent's task on a page of records needs, not a blank cheque. */
export const STANDING_MAX_CALLS = 20;

/** The longest a standing approval lives: 8 hours, a working day; the person's next day starts from a fresh decision. */
export const STANDING_MAX_TTL: number = 8 * 60 * 60 * 1000;

/** The calls the form offers first: 10. */
export const STANDING_DEFAULT_CALLS = 10;

/** The lifetime the form offers first: 1 hour. */
export const STANDING_DEFAULT_TTL: number = 60 * 60 * 1000;

/** A standing approval as its person sees it beside the token. */
export interface StandingApproval {
  readonly ID: string;
  readonly TokenID: string;
  readonly Tool: string;
  /** What every matching call shares (a team's id), "" for none. */
  readonly Context: string;
  /** The one record calls may change; undefined: any. */
  readonly Record: string | undefined;
  /** The fields calls may set; undefined: any. */
  readonly Fields: readonly string[] | undefined;
  /**
   * The record's current name, as the tool's preview of the approved call names it for `list`'s request
   * (`standingNames`); undefined when `Record` is, without a request, or when there is no preview (the record is gone
   * or no longer the person's to read).
   */
  readonly Title: string | undefined;
  /**
   * The labels of `Fields` in the tool's order, as that preview names them in the request's locale (a field it does
   * not name, by its name); undefined when `Fields` is, or without a request.
   */
  readonly FieldLabels: readonly string[] | undefined;
  /** Calls left. */
  readonly Remaining: number;
  readonly CreatedAt: Date;
  readonly ExpiresAt: Date;
}

/** What the person chose on the approval page. */
export interface StandingBounds {
  /** Whole calls, 1 to `STANDING_MAX_CALLS`, counting the call waiting now. */
  Calls: number;
  /** Whole hours, 1 to `STANDING_MAX_TTL`'s 8. */
  Hours: number;
  /** Only the record the waiting call names. */
  SameRecord: boolean;
  /** Only the fields the waiting call sets (or fewer). */
  SameFields: boolean;
}

/** Options of `StandingApprovals`. */
export interface StandingApprovalsOptions {
  /** The request store: a standing approval is made from one of its pending requests, which it then closes. */
  Approvals: Approvals;
  /** The tools: a call's `Target` is read from its tool. */
  Tools: { get(name: string): ToolDef | undefined };
  /** The event store (on the same handle): a creation or revocation commits with its audit event. */
  Events?: EventStore;
  /** Mails the person when a token gets its first standing approval (ASVS 5.0 §6.3.7); with `MailFrom`. */
  Mailer?: Mailer;
  MailFrom?: string;
  Logger?: Logger;
  /** @default systemClock */
  Clock?: Clock;
  /** @default cryptoRandom */
  Random?: RandomReader;
}

/** Why a request's standing approval closed it (its page's reason). */
export const STANDING_CLOSED = "covered by a standing approval: the agent's repeat of this call runs under it";

/** A call's target in the words of its approval page: the record by its name, the fields by their labels. */
export interface StandingNames {
  /** The record's name (`CallPreview.Title`); undefined when the call names no record or there is no preview. */
  readonly Title: string | undefined;
  /** Each of the target's fields by its label, in the target's order; a field the preview does not name, by its name. */
  readonly FieldLabels: readonly string[];
}

/**
 * Returns how `preview` (the approval page's, `ToolDef.Preview` of the call) names `target`: the standing form offers
 * "only this record" and "only these fields" in these words, and a standing approval keeps them for its list.
 */
export function standingNames(target: CallTarget, preview: CallPreview | undefined): StandingNames {
  const labels = new Map([...(preview?.Fields ?? []), ...(preview?.Unchanged ?? [])].map((f) => [f.Field, f.Label]));
  return {
    Title: target.Record === undefined ? undefined : preview?.Title,
    FieldLabels: target.Fields.map((f) => labels.get(f) ?? f),
  };
}

const NO_TARGET: CallTarget = Object.freeze({ Record: undefined, Fields: Object.freeze([]), Context: "" });

/** Returns what a call of `def` with `args` touches (`Target`, or "" context for a tool without one). */
export function targetOf(def: ToolDef | undefined, args: ReadonlyMap<string, ArgValue>): CallTarget {
  return def?.Target?.(args) ?? NO_TARGET;
}

type Row = { id: string; token_id: string; tool: string; context: string; record: string | null; fields: string | null } & {
  args: string;
  remaining: number;
  created_at: number;
  expires_at: number;
};

function toStanding(row: Row, names?: StandingNames): StandingApproval {
  return Object.freeze({
    ID: row.id,
    TokenID: row.token_id,
    Tool: row.tool,
    Context: row.context,
    Record: row.record ?? undefined,
    Fields: row.fields === null ? undefined : Object.freeze(JSON.parse(row.fields) as string[]),
    Title: names?.Title,
    FieldLabels: row.fields === null || names === undefined ? undefined : Object.freeze([...names.FieldLabels]),
    Remaining: row.remaining,
    CreatedAt: new Date(row.created_at),
    ExpiresAt: new Date(row.expires_at),
  });
}

// A standing approval may match while it is not ended, has calls left, lives, and its token lives (a revoked or
// expired token's standing approvals never match: they end with it, with `Sessions.RevokeAll` and an account's undo).
const LIVE = `s.ended IS NULL AND s.remaining > 0 AND s.expires_at > @now AND EXISTS (
  SELECT 1 FROM agent_tokens t WHERE t.id = s.token_id AND t.revoked_at IS NULL AND t.expires_at > @now)`;

/**
 * The standing approval store. Apply the agent `Schema` first.
 *
 * @example
 * const standing = new StandingApprovals(db, { Approvals: approvals, Tools: registry, Events: events });
 * standing.create(req, subject, approvalID, { Calls: 10, Hours: 1, SameRecord: true, SameFields: true });
 */
export class StandingApprovals {
  readonly #db: DB;
  readonly #options: StandingApprovalsOptions;
  readonly #clock: Clock;
  readonly #insert: Statement<Row & { subject: string }>;
  readonly #noticed: Statement<[number, string]>;
  readonly #list: Statement<[{ subject: string; now: number }], Row>;
  readonly #end: Statement<[{ reason: string; id: string; subject: string }]>;
  readonly #spend: Statement<[Record<string, string | number | null>], { id: string }>;
  readonly #sweep: Statement<[{ now: number; limit: number }]>;

  constructor(db: DB, options: StandingApprovalsOptions) {
    requireTables(db, "standing approvals", "agent.Schema", ["agent_standing_approvals"]);
    this.#db = db;
    this.#options = options;
    this.#clock = options.Clock ?? systemClock;
    this.#insert = db.prepare(
      `INSERT INTO agent_standing_approvals (id, subject, token_id, tool, context, record, fields, args, remaining, created_at, expires_at)
       VALUES (@id, @subject, @token_id, @tool, @context, @record, @fields, @args, @remaining, @created_at, @expires_at)`,
    );
    this.#noticed = db.prepare("UPDATE agent_tokens SET standing_noticed_at = ? WHERE id = ? AND standing_noticed_at IS NULL");
    const columns = "s.id, s.token_id, s.tool, s.context, s.record, s.fields, s.args, s.remaining, s.created_at, s.expires_at";
    this.#list = db.prepare(
      `SELECT ${columns} FROM agent_standing_approvals s WHERE s.subject = @subject AND ${LIVE} ORDER BY s.created_at, s.id`,
    );
    this.#end = db.prepare("UPDATE agent_standing_approvals SET ended = @reason WHERE id = @id AND subject = @subject AND ended IS NULL");
    // The call's fields must all be among the standing approval's (json_each over both arrays); one statement, so two
    // racing calls cannot both take the last one; the oldest first, in the order of the subject index (no sort).
    this.#spend = db.prepare(
      `UPDATE agent_standing_approvals SET remaining = remaining - 1 WHERE remaining > 0 AND id = (
         SELECT s.id FROM agent_standing_approvals s
         WHERE s.subject = @subject AND s.token_id = @token AND s.tool = @tool AND s.context = @context AND ${LIVE}
           AND (s.record IS NULL OR s.record = @record)
           AND (s.fields IS NULL OR NOT EXISTS (
             SELECT 1 FROM json_each(@fields) AS json_each WHERE json_each.value NOT IN (SELECT value FROM json_each(s.fields))))
         ORDER BY s.created_at, s.id LIMIT 1
       ) RETURNING id`,
    );
    this.#sweep = db.prepare(
      `DELETE FROM agent_standing_approvals WHERE rowid IN (SELECT s.rowid FROM agent_standing_approvals s
       WHERE NOT (${LIVE}) LIMIT @limit)`,
    );
  }

  /**
   * Makes a standing approval for calls like `subject`'s pending request `approvalID` (its token, tool and target),
   * closes that request (the agent's repeat runs under the new approval) and returns it; undefined when there is no such
   * pending request. The first one of a token mails its person. Throws `AgentError` ERR_AGENT_INVALID_APPROVAL (400)
   * naming the field for calls or hours out of range; nothing is stored then. `req` gives the mail's locale.
   */
  async create(req: IncomingMessage, subject: string, approvalID: string, bounds: StandingBounds): Promise<StandingApproval | undefined> {
    const invalid = (field: string, most: number): never => {
      throw new AgentError("ERR_AGENT_INVALID_APPROVAL", `standing approval: ${field} must be a whole number from 1 to ${most}`, {
        status: 400,
      });
    };
    // OWASP ASVS 5.0 §8.2.1 (least privilege): a standing approval is bounded in calls and in time, never open-ended.
    if (!Number.isSafeInteger(bounds.Calls) || bounds.Calls < 1 || bounds.Calls > STANDING_MAX_CALLS) invalid("calls", STANDING_MAX_CALLS);
    const hours = STANDING_MAX_TTL / 3_600_000;
    if (!Number.isSafeInteger(bounds.Hours) || bounds.Hours < 1 || bounds.Hours > hours) invalid("hours", hours);
    const now = this.#clock.now().getTime();
    const made = immediately(this.#db, () => {
      const request = this.#options.Approvals.get(approvalID, subject);
      if (request === undefined || request.Status !== "pending" || request.ExpiresAt.getTime() <= now) return undefined;
      const def = this.#options.Tools.get(request.Tool);
      const target = targetOf(def, new Map(Object.entries(request.Args)));
      // OWASP ASVS 5.0 §8.2.1: a destructive tool's standing approval keeps the fields the person saw whatever
      // `SameFields` says, so one given for a kind of change (a bulk set) never covers another (a bulk delete).
      const sameFields = bounds.SameFields || def?.Tool.Destructive === true;
      const row: Row & { subject: string } = {
        id: Buffer.from((this.#options.Random ?? cryptoRandom).read(16)).toString("base64url"),
        subject,
        token_id: request.TokenID,
        tool: request.Tool,
        context: target.Context,
        record: bounds.SameRecord ? (target.Record ?? null) : null,
        fields: sameFields ? JSON.stringify([...target.Fields].sort()) : null,
        // The approved call, kept so that its tool's preview names the record and fields for the list (`list`).
        args: JSON.stringify(request.Args),
        remaining: bounds.Calls,
        created_at: now,
        expires_at: now + bounds.Hours * 3_600_000,
      };
      this.#insert.run(row);
      this.#options.Approvals.voidPending(subject, (a) => a.ID === request.ID, STANDING_CLOSED);
      const { id, token_id, tool, context, record, fields, remaining, expires_at } = row;
      this.#record(subject, "agent.standing_approved", {
        standing: id,
        token: token_id,
        tool,
        context,
        record,
        fields,
        calls: remaining,
        expires_at,
      });
      return { standing: toStanding(row), first: this.#noticed.run(now, token_id).changes === 1 };
    });
    if (made?.first === true) await this.#notify(req, subject, made.standing);
    return made?.standing;
  }

  /**
   * Returns `subject`'s standing approvals that may still match, oldest first (the list beside each token). Given the
   * person's request, each names its record and fields as its tool's preview of the approved call does now, in the
   * request's locale (`Title`, `FieldLabels`): one preview each.
   */
  list(subject: string, req?: IncomingMessage): StandingApproval[] {
    return this.#list
      .all({ subject, now: this.#clock.now().getTime() })
      .map((row) => toStanding(row, req === undefined ? undefined : this.#names(req, subject, row)));
  }

  // What the approved call's preview says of the standing approval's record and fields now (its own tool, its person).
  #names(req: IncomingMessage, subject: string, row: Row): StandingNames {
    const def = this.#options.Tools.get(row.tool);
    const args = new Map(Object.entries(JSON.parse(row.args) as Record<string, ArgValue>));
    const fields: readonly string[] = row.fields === null ? [] : (JSON.parse(row.fields) as string[]);
    const target = {
      Record: row.record ?? undefined,
      Fields: targetOf(def, args).Fields.filter((f) => fields.includes(f)),
      Context: row.context,
    };
    return standingNames(target, def?.Preview?.({ Args: args, Subject: subject }, req));
  }

  /** Ends `subject`'s standing approval `id`; reports whether one was live (another person's id ends nothing). */
  revoke(subject: string, id: string): boolean {
    return immediately(this.#db, () => {
      if (this.#end.run({ reason: "revoked", id, subject }).changes !== 1) return false;
      this.#record(subject, "agent.standing_revoked", { standing: id });
      return true;
    });
  }

  /**
   * Ends `subject`'s live standing approvals that `match` picks, recording `reason`, and returns how many: the access
   * they were given under ended (lib/manifest ends a removed team member's for the team's tools). No audit event: the
   * membership's end is on the team's stream.
   */
  end(subject: string, match: (standing: StandingApproval) => boolean, reason: string): number {
    return immediately(this.#db, () =>
      this.list(subject).reduce((n, s) => n + (match(s) ? this.#end.run({ reason, id: s.ID, subject }).changes : 0), 0),
    );
  }

  /** Spends one call of a live standing approval covering the call and returns its id, or undefined (the invoker's). */
  spend(subject: string, tokenID: string, tool: string, target: CallTarget): string | undefined {
    const fields = JSON.stringify(target.Fields);
    const now = this.#clock.now().getTime();
    return this.#spend.get({ subject, token: tokenID, tool, context: target.Context, record: target.Record ?? null, fields, now })?.id;
  }

  /** Deletes every standing approval that can no longer match (ended, spent, expired, its token ended) and returns how many. */
  async sweep(now: Date): Promise<number> {
    const t = now.getTime();
    return (await sweepInSteps(this.#db, { standing: (limit) => this.#sweep.run({ now: t, limit }).changes })).standing;
  }

  #record(subject: string, type: string, data: Record<string, unknown>): void {
    // SPEC §6.2: the change and its audit event commit together (lib/events README "A write and its event").
    this.#options.Events?.appendAudit({ Subject: subject, Actor: humanActor(), Type: type, Data: data });
  }

  async #notify(req: IncomingMessage, subject: string, standing: StandingApproval): Promise<void> {
    const { Mailer: mailer, MailFrom: from } = this.#options;
    if (mailer === undefined || from === undefined) return;
    try {
      await mailer.Send(
        standingNotice(req, { from, to: subject, tool: standing.Tool, calls: standing.Remaining, expires: standing.ExpiresAt }),
      );
    } catch (err) {
      // The standing approval stands (the person made it on the page); the notice is the log's to retry by hand.
      this.#options.Logger?.error("standing approval notice not sent", { ref: NewRef(), error: err });
    }
  }
}
